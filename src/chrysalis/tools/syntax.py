"""Refuse a write that would leave a Python file unparseable.

A small model's usual failure on a one-line fix is not the logic but the layout: a ``return``
glued to the ``def`` line, a lost indent. The write succeeds, the tests then fail to even import,
and the model rarely finds its way back. Checking the new text with ``compile`` before writing
(as SWE-agent's edit linter does) keeps the file as it was and tells the model exactly which line
is wrong. A file that did not parse before the write is not held to it: the write may be the fix.
"""

from __future__ import annotations

from pathlib import Path

from chrysalis.tools.base import ToolError
from chrysalis.tools.text import number_lines

__all__ = ["check_python_syntax"]


def check_python_syntax(path: Path, shown: str, new_text: str, old_text: str | None) -> None:
    """Raise ``ToolError`` if ``new_text`` breaks a ``.py`` file that parsed (or is new).

    Args:
        path: The file about to be written (only ``.py`` files are checked).
        shown: Its workspace-relative name, for the message.
        new_text: The content about to be written.
        old_text: The current content, or None for a new file.
    """
    if path.suffix != ".py":
        return
    problem = _syntax_problem(new_text, shown)
    if problem is None or (old_text is not None and _syntax_problem(old_text, shown) is not None):
        return
    message, line = problem
    raise ToolError(
        f"Not written: {shown} would not be valid Python after this change ({message}). It would read:\n"
        f"{_numbered_around(new_text, line)}\n{shown} is unchanged. Keep each statement on its own line, "
        "indented like the lines around it; to change a line, put that whole line in old_text."
    )


_CONTEXT_BEFORE = 3
_CONTEXT_AFTER = 2


def _syntax_problem(text: str, shown: str) -> tuple[str, int] | None:
    """The error and its line number (1-based; 0 when unknown), or None when ``text`` compiles."""
    try:
        compile(text, shown, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors too
        line = exc.lineno or 0
        return f"{type(exc).__name__}: {exc.msg}" + (f", line {line}" if line else ""), line
    except ValueError as exc:  # e.g. a null byte in the source
        return f"ValueError: {exc}", 0
    return None


def _numbered_around(text: str, line: int) -> str:
    """The lines around ``line``, numbered as read_file numbers them, so the model sees what it did."""
    lines = text.splitlines()
    if not lines:
        return "(empty)"
    line = min(max(line, 1), len(lines))
    first, last = max(1, line - _CONTEXT_BEFORE), min(len(lines), line + _CONTEXT_AFTER)
    return number_lines(lines[first - 1 : last], first)
