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
    raise ToolError(
        f"Not written: after this change {shown} would not be valid Python ({problem}). "
        f"{shown} is unchanged. Keep each statement on its own line, indented like the lines around it."
    )


def _syntax_problem(text: str, shown: str) -> str | None:
    try:
        compile(text, shown, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors too
        where = f"line {exc.lineno}" if exc.lineno else "somewhere"
        line = (exc.text or "").rstrip("\n")
        return f"{type(exc).__name__}: {exc.msg}, {where}" + (f": {line!r}" if line.strip() else "")
    except ValueError as exc:  # e.g. a null byte in the source
        return f"ValueError: {exc}"
    return None
