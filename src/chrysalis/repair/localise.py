"""Where the bug is: run the tests once under ``coverage`` and rank the functions the failing tests reach.

Spectrum-based fault localisation: a line run by many failing tests and few passing ones is
suspicious. Each line gets the Ochiai score ``ef / sqrt(F * (ef + ep))`` (``ef``/``ep``: failing and
passing tests that ran it, ``F``: all failing tests), the standard choice in the literature; a line a
failing test's traceback passes through (an exception raised in the code, not only an assertion in
the test) gets 1 more. A function's score is its best line's. Test files are never suspects: the
fix belongs in the code under test.

Coverage records which test ran which line through its dynamic contexts (``test_function``), read
back with ``coverage.CoverageData``. Everything runs in a copy of the workspace (the coverage data
file never lands in the user's project). Without pytest, or when coverage cannot run in the project's
Python, the traceback lines and the modules the failing tests import are all there is.
"""

from __future__ import annotations

import ast
import math
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from chrysalis.repair.testrun import VENVS, TestRun, WorkspaceCopy, run_tests
from chrysalis.tools.per_test_limit import LIMIT_OPTION, PLUGIN_DIR, PLUGIN_MODULE, is_pytest, per_test_limit
from chrysalis.tools.sandbox import SandboxOptions

__all__ = [
    "PLUGIN_FILE",
    "Localisation",
    "Suspect",
    "hinted_first",
    "is_test_file",
    "localise",
]

PLUGIN_FILE = "_chrysalis_test_limit.py"
"""The per-test limit plugin as copied into the workspace copy and loaded with ``-p``."""
_PLUGIN_SOURCE = PLUGIN_DIR / f"{PLUGIN_MODULE}.py"
"""Copied, never imported here: it imports pytest, which only the project's Python needs to have."""
_DATA = ".chrysalis-coverage"
_RC = ".chrysalis-coveragerc"
_FRAME = re.compile(r"^(\S+\.py):(\d+): in (\w+)", re.MULTILINE)
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)


@dataclass(frozen=True)
class Suspect:
    """One suspicious function: where it is, how suspicious, and its most suspicious lines."""

    path: str
    """Relative to the workspace."""
    function: str
    """Its qualified name (``Class.method``), or ``<module>`` for code outside functions."""
    start: int
    end: int
    score: float
    lines: tuple[int, ...]
    """Its lines with the best score, most suspicious first."""
    ranked: tuple[int, ...] = ()
    """All its scored lines, most suspicious first (ties top-down)."""

    def to_json(self) -> dict[str, object]:
        """For the ``repair_round`` event."""
        return {
            "path": self.path,
            "function": self.function,
            "start": self.start,
            "end": self.end,
            "score": round(self.score, 3),
            "lines": list(self.lines),
        }


@dataclass(frozen=True)
class Localisation:
    """The first test run and the suspects it points at, best first."""

    run: TestRun
    suspects: tuple[Suspect, ...]
    method: Literal["spectrum", "traceback", "imports", "none"]
    notes: tuple[str, ...] = field(default=())


def is_test_file(path: str) -> bool:
    """A test file or a test helper: ``test_*.py``, ``*_test.py``, ``conftest.py``, or under a ``tests`` folder."""
    p = Path(path)
    return (
        p.name.startswith("test_")
        or p.name.endswith("_test.py")
        or p.name == "conftest.py"
        or any(part in ("tests", "test") for part in p.parts[:-1])
    )


def localise(workspace: Path, command: str, options: SandboxOptions, timeout: float) -> Localisation:
    """Run ``command`` (under coverage when it is pytest) in a copy of ``workspace`` and rank the suspects.

    Raises:
        SandboxUnavailable: no sandbox works here (and running unconfined is not allowed).
    """
    with WorkspaceCopy(workspace) as copy:
        spectrum: dict[str, dict[int, set[str]]] | None = None
        if is_pytest(command):
            (copy.root / _RC).write_text(
                f"[run]\ndynamic_context = test_function\ndata_file = {_DATA}\nsource = .\n"
                f"omit = .venv/*, venv/*, {PLUGIN_FILE}\nsigterm = true\n"
            )
            shutil.copyfile(_PLUGIN_SOURCE, copy.root / PLUGIN_FILE)
            limit = (f"-p{Path(PLUGIN_FILE).stem}", f"{LIMIT_OPTION}={per_test_limit(timeout):g}")
            run = run_tests(command, copy.root, options, timeout, coverage_rc=_RC, extra=limit)
            spectrum = _read_spectrum(copy.root)
            if spectrum is None:  # no coverage in the project's Python: run the plain command for its output
                run = run_tests(command, copy.root, options, timeout)
        else:
            run = run_tests(command, copy.root, options, timeout)
        return _rank(copy.root, run, spectrum)


def _read_spectrum(root: Path) -> dict[str, dict[int, set[str]]] | None:
    """For each workspace file, each line and the test contexts that ran it; None when there is no data."""
    data_file = root / _DATA
    if not data_file.is_file():
        return None
    import coverage

    data = coverage.CoverageData(str(data_file))
    data.read()
    spectrum: dict[str, dict[int, set[str]]] = {}
    for measured in data.measured_files():
        rel = _relative(root, measured)
        if rel is None:
            continue
        by_line: dict[int, set[str]] = defaultdict(set)
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            by_line[line].update(c for c in contexts if c)
        spectrum[rel] = by_line
    return spectrum


def _relative(root: Path, measured: str) -> str | None:
    """``measured`` (a path from coverage or a traceback) relative to the copy; None when it lies outside it.

    Frames in the standard library, an installed package or the project's virtual environment are
    not the project's code, so they are never suspects, however often a traceback passes through them.
    """
    path = Path(measured)
    if path.is_absolute():
        for base in (root, root.resolve()):
            if path.is_relative_to(base):
                path = path.relative_to(base)
                break
        else:
            return None
    if any(part in VENVS or part == "site-packages" for part in path.parts) or not (root / path).is_file():
        return None
    return path.as_posix()


def _context_of(node_id: str) -> str:
    """Pytest's ``tests/test_calc.py::TestX::test_y[1]`` as coverage's context ``test_calc.TestX.test_y``."""
    path, _, rest = node_id.partition("::")
    return ".".join([Path(path).stem, *rest.split("[")[0].split("::")])


def _rank(root: Path, run: TestRun, spectrum: dict[str, dict[int, set[str]]] | None) -> Localisation:
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    method: Literal["spectrum", "traceback", "imports", "none"] = "none"
    failed = {_context_of(node) for node in run.failed}
    passed = {_context_of(node) for node in run.passed}
    if spectrum and failed:
        method = "spectrum"
        for path, lines in spectrum.items():
            if is_test_file(path):
                continue
            for line, contexts in lines.items():
                ef = sum(1 for c in contexts if any(c.endswith(f) for f in failed))
                ep = sum(1 for c in contexts if any(c.endswith(p) for p in passed))
                if ef:
                    scores[path][line] = ef / math.sqrt(len(failed) * (ef + ep))
    for frame in _FRAME.finditer(run.output):
        ours = _relative(root, frame[1])  # None for the standard library and installed packages: not ours to fix
        if ours is not None and not is_test_file(ours) and ours != PLUGIN_FILE:
            method = "spectrum" if method == "spectrum" else "traceback"
            scores[ours][int(frame[2])] = scores[ours].get(int(frame[2]), 0.0) + 1.0
    if not scores:
        for path in _imported(root, run):
            method = "imports"
            tree_lines = (root / path).read_text(errors="replace").count("\n") + 1
            scores[path] = dict.fromkeys(range(1, tree_lines + 1), 0.1)
    suspects = [s for path, lines in scores.items() for s in _functions(root, path, lines)]
    suspects.sort(key=lambda s: (-s.score, s.path, s.start))
    return Localisation(run, tuple(suspects), method)


def _imported(root: Path, run: TestRun) -> list[str]:
    """The workspace modules the failing test files import (the code under test), when nothing else points."""
    found: list[str] = []
    for node in run.failed:
        test_file = root / node.partition("::")[0]
        if not test_file.is_file():
            continue
        for match in _IMPORT.finditer(test_file.read_text(errors="replace")):
            module = (match[1] or match[2]).replace(".", "/")
            for candidate in (f"{module}.py", f"src/{module}.py", f"{module}/__init__.py"):
                if (root / candidate).is_file() and not is_test_file(candidate) and candidate not in found:
                    found.append(candidate)
    return found


def _functions(root: Path, path: str, lines: dict[int, float]) -> list[Suspect]:
    """The functions of ``path`` holding scored lines (innermost function wins), each scored by its best line."""
    try:
        tree = ast.parse((root / path).read_text(errors="replace"))
    except SyntaxError:
        return []
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    spans.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, f"{name}.")

    visit(tree, "")
    grouped: dict[tuple[int, int, str], dict[int, float]] = defaultdict(dict)
    for line, score in lines.items():
        holders = [span for span in spans if span[0] <= line <= span[1]]
        if holders:
            grouped[max(holders, key=lambda s: s[0])][line] = score
    result = []
    for (start, end, name), scored in grouped.items():
        best = max(scored.values())
        top = tuple(sorted((line for line, score in scored.items() if score == best)))
        ranked = tuple(sorted(scored, key=lambda line: (-scored[line], line)))
        result.append(Suspect(path, name, start, end, best, top, ranked))
    return result


def hinted_first(located: Localisation, hint: str | None) -> Localisation:
    """``located`` with the suspects the hint names moved to the front."""
    if not hint:
        return located
    hinted = [s for s in located.suspects if _matches(hint, s)]
    return replace(located, suspects=(*hinted, *(s for s in located.suspects if s not in hinted)))


def _matches(hint: str, suspect: Suspect) -> bool:
    """The hint names the suspect's function or file (``subtract``, ``calc.py``, "the bug in subtract")."""
    words = set(re.findall(r"[\w.]+", hint))
    return bool({suspect.function, suspect.function.rsplit(".", 1)[-1], suspect.path, Path(suspect.path).stem} & words)
