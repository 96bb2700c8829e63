"""Asking the person at the terminal to approve a call, showing what it would change first.

A call that changes files (``write_file``, ``edit_file``, ``apply_patch``) is shown as the unified
diff it would make, computed by the tool's own planning code (``ToolSpec.preview``) from the file
as it is now, without writing: what the person approves is what will be written. The diff is
coloured (added green, removed red), cut after ``MAX_DIFF_LINES`` lines with a count of the rest,
and passed through the redactor, as everything else Chrysalis prints from a file is. When the diff
cannot be worked out (the old text is not in the file, a hunk does not apply), one line says why
and the question is still asked: declining is then the usual answer, but it stays the person's.
"""

from __future__ import annotations

import asyncio
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from chrysalis.agent.toolset import Approver
from chrysalis.redact import current as current_redactor
from chrysalis.tools.base import ToolContext, ToolError
from chrysalis.tools.diffs import Diff, unified_diff

__all__ = ["MAX_DIFF_LINES", "show_request", "terminal_approver"]

MAX_DIFF_LINES = 80
"""Most diff lines shown before the prompt; the rest are counted, not shown."""
_ARG_CHARS = 200
_STYLES = (("+++ ", "bold"), ("--- ", "bold"), ("+", "green"), ("-", "red"), ("@@", "cyan"), ("\\", "dim"))


def terminal_approver(
    workspace: Callable[[], Path], *, console: Console | None = None, ask: Callable[[str], bool] | None = None
) -> Approver | None:
    """Ask on the terminal when there is one; with no terminal nobody can approve (use --yes).

    Args:
        workspace: The run's workspace, read at each question (the REPL's ``/set workspace`` may change it).
        console: Where the request and its diff go (default: stdout).
        ask: Put the question and return the answer (default: a y/N prompt on the terminal); a test passes its own.
    """
    out = console or Console(highlight=False)
    if ask is None:
        if not sys.stdin.isatty():
            return None
        ask = _confirm(out)
    answer = ask

    async def approve(tool: str, args: dict[str, Any], reason: str) -> bool:
        show_request(out, tool, args, reason, workspace())
        return await asyncio.to_thread(answer, "  Allow?")

    return approve


def _confirm(console: Console) -> Callable[[str], bool]:
    def confirm(question: str) -> bool:
        from rich.prompt import Confirm

        return Confirm.ask(question, default=False, console=console)

    return confirm


def show_request(console: Console, tool: str, args: dict[str, Any], reason: str, workspace: Path) -> None:
    """Print why approval is needed, the call, and for a call that changes files, its diff."""
    redact = current_redactor().text
    diff, problem = _diff_of(tool, args, workspace)
    shown = ", ".join(
        f"{key}={redact(str(value))[:_ARG_CHARS]!r}" for key, value in args.items() if diff is None or key == "path"
    )
    console.print(Text(redact(reason)), Text(f"  {tool}({shown})"), sep="\n")  # a reason may quote a URL
    if problem is not None:
        console.print(Text.assemble(("  no diff: ", "yellow"), _visible(_first_line(problem))))
    elif diff is not None:
        _print_diff(console, diff, redact)


def _diff_of(tool: str, args: dict[str, Any], workspace: Path) -> tuple[Diff | None, str | None]:
    """The call's diff, or the reason it cannot be worked out; (None, None) for a tool that changes no file."""
    from chrysalis.tools.registry import builtin_tools

    spec = builtin_tools().get(tool)
    if spec is None:
        return None, None
    try:
        changes = spec.preview_changes(args, ToolContext(workspace=workspace))
    except ToolError as exc:
        return None, str(exc)
    return (None, None) if changes is None else (unified_diff(changes), None)


def _print_diff(console: Console, diff: Diff, redact: Callable[[str], str]) -> None:
    if not diff.lines:
        console.print(Text("  no change: the file already reads so", "dim"))
        return
    files = sum(1 for line in diff.lines if line.startswith("+++ "))
    console.print(Text(f"  {files} file(s), +{diff.added} -{diff.removed}", "dim"))
    for line in diff.lines[:MAX_DIFF_LINES]:
        style = next((style for prefix, style in _STYLES if line.startswith(prefix)), "")
        console.print(Text("  " + _visible(redact(line)), style), soft_wrap=True)
    left = len(diff.lines) - MAX_DIFF_LINES
    if left > 0:
        console.print(Text(f"  … {left} more diff line(s) not shown", "dim"))


def _first_line(problem: str) -> str:
    """A tool error's first line, without a sentence that introduces the lines after it ("The closest lines are:")."""
    line = problem.splitlines()[0] if problem.strip() else "the tool gave no reason"
    if line.endswith(":") and ". " in line:
        line = line[: line.rindex(". ") + 1]
    return line


def _visible(text: str) -> str:
    """Control characters (an escape sequence a model wrote) shown escaped, never sent to the terminal."""
    return "".join(
        char if char == "\t" or unicodedata.category(char) not in ("Cc", "Cf") else repr(char)[1:-1] for char in text
    )
