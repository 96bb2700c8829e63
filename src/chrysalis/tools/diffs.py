"""The unified diff of what a file-changing call would do (``ToolSpec.preview``), as plain lines.

Entry points show it where a person decides: the terminal's approval prompt colours it, an editor
(ACP) gets the old and new text of each ``FileChange`` as they are. A created file is all added
lines (from ``/dev/null``), a deleted one all removed.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from chrysalis.tools.base import FileChange

__all__ = ["Diff", "unified_diff"]

_NO_EOL = "\\ No newline at end of file"


def _lines(text: str | None) -> list[str]:
    """The lines of ``text``, the last marked when it has no final newline (as ``diff`` does)."""
    if not text:
        return []
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        lines[-1] += "\n" + _NO_EOL
    return lines


@dataclass(frozen=True)
class Diff:
    """A unified diff, one string per line without line ends, and how many lines it adds and removes."""

    lines: tuple[str, ...]
    added: int
    removed: int


def unified_diff(changes: Sequence[FileChange], *, context: int = 3) -> Diff:
    """The diff of every change (``--- a/x``, ``+++ b/x``, then hunks), file after file."""
    lines: list[str] = []
    added = removed = 0
    for change in changes:
        before = "/dev/null" if change.old is None else f"a/{change.path}"
        after = "/dev/null" if change.new is None else f"b/{change.path}"
        diff = difflib.unified_diff(_lines(change.old), _lines(change.new), before, after, n=context, lineterm="")
        for number, line in enumerate(diff):
            if number >= 2:  # difflib yields the two file headers first
                added += line.startswith("+")
                removed += line.startswith("-")
            lines.extend(line.split("\n"))  # a line marked "no newline at end" becomes two
    return Diff(tuple(lines), added, removed)
