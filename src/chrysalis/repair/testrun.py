"""Running a project's tests for repair: in a throwaway copy of the workspace, confined, with a timeout.

Repair runs the tests many times (once to localise, then for each candidate patch), and none of
those runs may touch the user's files: each happens in a copy (``WorkspaceCopy``) made with the
project's virtual environment linked in, not copied. ``run_tests`` reads pytest's ``-rA`` summary
into the tests that passed and failed; a run cut short by its timeout (an infinite loop is a common
wrong patch) says so instead.
"""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from chrysalis.tools.per_test_limit import is_pytest
from chrysalis.tools.sandbox import SandboxOptions
from chrysalis.tools.shell import run_confined

__all__ = ["IGNORED", "VENVS", "TestRun", "WorkspaceCopy", "run_tests"]

IGNORED = (
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".chrysalis",
    "node_modules",
    ".coverage",
)
"""Not copied: version control, caches, our own folder. Virtual environments are linked, not copied."""
VENVS = (".venv", "venv")
_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR) (\S+?)(?: - .*)?$", re.MULTILINE)


@dataclass(frozen=True)
class TestRun:
    """One run of the tests: exit code (None when stopped), output, and the node ids that passed and failed."""

    __test__ = False  # not a pytest test class, whatever its name

    command: str
    exit_code: int | None
    output: str
    passed: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """Every test passed (exit code 0)."""
        return self.exit_code == 0


class WorkspaceCopy:
    """A temporary copy of a workspace, removed on exit; ``.venv``/``venv`` are symlinks to the originals."""

    def __init__(self, workspace: Path, *, prefix: str = "chrysalis-repair-") -> None:
        self.source = workspace.resolve()
        self._tmp = Path(tempfile.mkdtemp(prefix=prefix))
        self.root = self._tmp / self.source.name
        shutil.copytree(self.source, self.root, symlinks=True, ignore=shutil.ignore_patterns(*IGNORED, *VENVS))
        for name in VENVS:
            if (self.source / name).is_dir():
                (self.root / name).symlink_to(self.source / name)

    def __enter__(self) -> WorkspaceCopy:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Remove the copy."""
        shutil.rmtree(self._tmp, ignore_errors=True)


def run_tests(
    command: str,
    root: Path,
    options: SandboxOptions,
    timeout: float,
    *,
    only: tuple[str, ...] = (),
    coverage_rc: str | None = None,
    extra: tuple[str, ...] = (),
) -> TestRun:
    """Run the test ``command`` in ``root``; for pytest, ``only`` these node ids, with a per-test summary.

    With ``coverage_rc`` (a pytest command only), pytest runs under ``coverage run --rcfile=coverage_rc``;
    ``extra`` are more pytest arguments (a plugin to load and its option).

    Raises:
        SandboxUnavailable: no sandbox works here (and running unconfined is not allowed).
    """
    full = command
    if is_pytest(command):
        words = shlex.split(command)
        args = [*(words[1:] if Path(words[0]).name == "pytest" else words[3:]), "-rA", "--tb=short", *extra, *only]
        runner = ["python", "-m", "coverage", "run", f"--rcfile={coverage_rc}"] if coverage_rc else [words[0]]
        full = (
            shlex.join([*runner, "-m", "pytest", *args])
            if coverage_rc or words[0] != "pytest"
            else shlex.join(["pytest", *args])
        )
    code, output, stop = run_confined(full, root, options, timeout)
    passed = tuple(m[2] for m in _SUMMARY.finditer(output) if m[1] == "PASSED")
    failed = tuple(m[2] for m in _SUMMARY.finditer(output) if m[1] != "PASSED")
    return TestRun(full, code, output, passed, failed, timed_out=stop == "timeout")
