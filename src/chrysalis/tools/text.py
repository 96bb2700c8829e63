"""Reading and showing text files the one way every tool does: UTF-8, numbered lines.

A model that copies ``old_text`` from one tool's output into another's input depends on all of
them numbering lines alike (``  12| text``) and refusing binaries alike.
"""

from __future__ import annotations

from pathlib import Path

from chrysalis.tools.base import ToolError
from chrysalis.tools.fileio import read_bytes

__all__ = ["BinaryFileError", "number_lines", "read_text"]


class BinaryFileError(ToolError):
    """The file holds a NUL byte in its first 8 KiB, as git and grep decide it: it has no text to read or edit."""

    def __init__(self, shown: str, size: int) -> None:
        super().__init__(f"{shown!r} is a binary file ({size} bytes); only text files can be read or edited.")
        self.size = size


def read_text(workspace: Path, path: Path, shown: str) -> str:
    """Read a text file for a tool, refusing folders and binary files with errors the model can act on.

    ``path`` is resolved and inside ``workspace``; it is opened without following links
    (``fileio.read_bytes``), so a symlink swapped in since the path was checked cannot lead out.
    """
    data = read_bytes(workspace, path, shown)
    if b"\x00" in data[:8192]:
        raise BinaryFileError(shown, len(data))
    return data.decode("utf-8", errors="replace")


def number_lines(lines: list[str], first: int) -> str:
    """Lines with right-aligned 1-based numbers (``  12| text``): the form read_file shows."""
    width = max(4, len(str(first + len(lines) - 1)))
    return "\n".join(f"{n:>{width}}| {line}" for n, line in enumerate(lines, start=first))
