"""``run_tests``: run the project's tests and say which code the failing tests exercise.

A dedicated tool (like Aider's ``--test-cmd``) beats asking the model to guess a shell command:
the command comes from config or the project's files, and a failure report names the source
files the failing tests import, which is where small models most need pointing. A pytest run
gives each test a time limit (``per_test_limit``), so code stuck in a loop shows where it loops.
"""

from __future__ import annotations

import re
from pathlib import Path

from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.fileio import read_bytes
from chrysalis.tools.per_test_limit import PLUGIN_DIR, with_test_limit
from chrysalis.tools.shell import run_command
from chrysalis.tools.workspace import resolve

__all__ = ["code_under_test", "detect_test_command", "run_test_command", "run_tests"]

_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)
_FAILED_FILE = re.compile(r"^(?:FAILED|ERROR) ([^\s:]+\.py)", re.MULTILINE)
_PYTHON_MARKERS = ("pytest.ini", "conftest.py", "tests", "test", "setup.py", "pyproject.toml", "setup.cfg")


def detect_test_command(workspace: Path) -> str | None:
    """The usual test command for the project in ``workspace``, or ``None`` when nothing says how."""
    if any((workspace / marker).exists() for marker in _PYTHON_MARKERS):
        return "python -m pytest -q -p no:cacheprovider"
    if (workspace / "package.json").is_file():
        return "npm test --silent"
    if (workspace / "Cargo.toml").is_file():
        return "cargo test -q"
    if (workspace / "go.mod").is_file():
        return "go test ./..."
    makefile = workspace / "Makefile"
    if makefile.is_file() and re.search(r"^test:", makefile.read_text(errors="replace"), re.MULTILINE):
        return "make test"
    return None


def code_under_test(workspace: Path, test_path: str) -> list[str]:
    """The workspace files a Python test file imports: where a fix belongs when the test may not change.

    Only files inside the workspace count: a test path or an imported module that is a link out of
    it is left out, because callers show the first one to the model.
    """
    try:
        text = read_bytes(workspace, resolve(workspace, test_path, must_exist=True), test_path).decode(
            "utf-8", errors="replace"
        )
    except (OSError, ToolError):
        return []
    found: list[str] = []
    for match in _IMPORT.finditer(text):
        module = (match.group(1) or match.group(2)).replace(".", "/")
        for candidate in (f"{module}.py", f"{module}/__init__.py", f"src/{module}.py", f"src/{module}/__init__.py"):
            if candidate not in found and _inside_file(workspace, candidate):
                found.append(candidate)
    return found


def _inside_file(workspace: Path, candidate: str) -> bool:
    try:
        return resolve(workspace, candidate, must_exist=True).is_file()
    except ToolError:
        return False


def run_test_command(command: str, ctx: ToolContext) -> tuple[int | None, str]:
    """``shell.run_command`` for the project's test command: a plain pytest call gets its per-test time limit.

    The one way tests run for the model (``run_tests``) and for the framework (the final check), so
    both see the same report.
    """
    return run_command(with_test_limit(command, ctx.shell_timeout), ctx, readable=(PLUGIN_DIR,))


class RunTestsArgs(ToolArgs):
    """``run_tests`` takes no arguments: the command comes from the project."""


def _run_tests(_args: RunTestsArgs, ctx: ToolContext) -> ToolResult:
    command = ctx.test_command or detect_test_command(ctx.workspace)
    if command is None:
        return ToolResult.failure(
            "No test command is known for this project: set test_command in .chrysalis/config.toml, "
            "or run the tests with the shell tool."
        )
    code, report = run_test_command(command, ctx)
    if code:
        failing = sorted(set(_FAILED_FILE.findall(report)))
        sources = [src for test in failing for src in code_under_test(ctx.workspace, test)]
        if sources:
            report += (
                f"\nThe failing tests exercise {', '.join(dict.fromkeys(sources))}: read that code to find the bug."
            )
    return ToolResult.success(f"$ {command}\n{report}")


run_tests = ToolSpec(
    name="run_tests",
    description="Run the project's tests; shows which tests fail and the code they exercise.",
    args=RunTestsArgs,
    effect="shell",
    level=1,
    run=_run_tests,
)
