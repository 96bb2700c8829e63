"""Read, write, edit and list files in the workspace.

The embedded model has an 8k context, so output is compact: ``read_file`` shows at most
``MAX_READ_LINES`` lines at a time with line numbers, and ``edit_file`` errors say exactly why an
edit did not apply (no match, or several) and show the closest lines, because a failed edit is the
usual trap for small models.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field

from chrysalis.redact import MARKER, added_markers
from chrysalis.tools.base import FileChange, ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, at_most
from chrysalis.tools.clean_edit import check_clean_edit
from chrysalis.tools.fileio import encode_text, write_bytes
from chrysalis.tools.syntax import check_python_syntax
from chrysalis.tools.text import BinaryFileError, number_lines, read_text
from chrysalis.tools.workspace import list_entries, normalize, relative, resolve, show_entry

__all__ = [
    "EditFileArgs",
    "ListDirArgs",
    "ReadFileArgs",
    "WriteFileArgs",
    "edit_file",
    "list_dir",
    "read_file",
    "refuse_marker_match",
    "refuse_markers",
    "write_file",
]

MAX_READ_LINES = 250
"""Most lines one read_file call shows; the model pages with start_line/end_line."""
MAX_LIST_ENTRIES = 300
_CLOSEST_SCAN_LIMIT = 5_000
"""Files longer than this many lines get no 'closest lines' hint: it would cost more than it helps."""


class ReadFileArgs(ToolArgs):
    """Arguments of read_file."""

    path: str = Field(description="File path, relative to the workspace.")
    start_line: int | None = Field(default=None, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(default=None, ge=1, description="Last line to show (inclusive).")


def _read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
    path = resolve(ctx.workspace, args.path, must_exist=True)
    shown = relative(ctx.workspace, path)
    lines = read_text(ctx.workspace, path, shown).splitlines()
    total = len(lines)
    if total == 0:
        return ToolResult.success(f"{shown} is empty (0 lines).")
    start = args.start_line or 1
    if start > total:
        raise ToolError(f"start_line {start} is past the end of {shown}, which has {total} lines.")
    end = min(args.end_line or total, total)
    if end < start:
        raise ToolError(f"end_line {args.end_line} is before start_line {start}.")
    end = min(end, start + MAX_READ_LINES - 1)
    header = f"{shown} (lines {start}-{end} of {total})"
    more = f"\n[{total - end} more lines: read_file with start_line={end + 1}]" if end < total else ""
    return ToolResult.success(f"{header}\n{number_lines(lines[start - 1 : end], start)}{more}")


read_file = ToolSpec(
    name="read_file",
    description="Read a text file, with line numbers. Use start_line/end_line to read part of a long file.",
    args=ReadFileArgs,
    effect="read",
    level=0,
    run=_read_file,
)


class WriteFileArgs(ToolArgs):
    """Arguments of write_file."""

    path: str = Field(description="File path, relative to the workspace.")
    content: str = Field(description="The whole new content of the file.")


def _plan_write(args: WriteFileArgs, ctx: ToolContext) -> tuple[Path, str, bytes, bool]:
    """The path, its shown name, the bytes to write and whether the file exists; refuses as the write would."""
    path = resolve(ctx.workspace, args.path, for_write=True)
    shown = relative(ctx.workspace, path)
    if path.is_dir():
        raise ToolError(f"{shown!r} is a directory; give a file path.")
    data = encode_text(args.content, shown)
    existed = path.exists()
    if MARKER.search(args.content):
        refuse_markers(shown, read_text(ctx.workspace, path, shown) if existed else "", args.content)
    old = read_text(ctx.workspace, path, shown) if existed and path.suffix == ".py" else None
    check_python_syntax(path, shown, args.content, old)
    check_clean_edit(path, shown, args.content, old)
    return path, shown, data, existed


def _write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
    path, shown, data, existed = _plan_write(args, ctx)
    ctx.before_write(path)
    others = write_bytes(ctx.workspace, path, data, shown)
    lines = len(args.content.splitlines())
    verb = "Overwrote" if existed else "Created"
    return ToolResult.success(f"{verb} {shown} ({lines} lines).{hard_link_note(others)}")


def _preview_write(args: WriteFileArgs, ctx: ToolContext) -> list[FileChange]:
    """The write as a change of text; a binary file has no text to diff, so it says what it replaces instead."""
    path, shown, _data, existed = _plan_write(args, ctx)
    try:
        old = read_text(ctx.workspace, path, shown) if existed else None
    except BinaryFileError as exc:
        lines = len(args.content.splitlines())
        raise ToolError(
            f"{shown!r} is a binary file ({exc.size} bytes); this write replaces it with {lines} lines of text."
        ) from exc
    return [FileChange(shown, old, args.content)]


def refuse_markers(shown: str, old: str, new: str) -> None:
    """Refuse a write that would put a redaction marker into a file where the file has a secret.

    The model sees ``[REDACTED:...]`` in place of each secret a tool read (``chrysalis.redact``);
    writing what it saw back would replace the secret with the marker. Markers the file already
    holds as text may stay.

    Raises:
        ToolError: ``new`` holds a marker more often than ``old``.
    """
    added = added_markers(old, new)
    if added:
        raise ToolError(
            f"Not written: the new text of {shown} contains {', '.join(added)}, which stands for a secret hidden "
            "from you, not for text: writing it would replace the secret with the marker. Leave the lines that "
            "hold a secret as they are and change only the others (edit_file, with old_text and new_text "
            "free of markers)."
        )


def refuse_marker_match(shown: str, old_fragment: str, text: str) -> None:
    """Explain why text to replace that holds a redaction marker can never match the file.

    Raises:
        ToolError: ``old_fragment`` holds a marker that ``text`` (the file) does not.
    """
    for found in MARKER.finditer(old_fragment):
        if found.group() not in text:
            raise ToolError(
                f"The text to replace contains {found.group()}, which stands for a secret hidden from you: "
                f"{shown} holds the secret there, not the marker, so it can never match. Choose the text to "
                "replace from lines without a marker, and leave those lines as they are."
            )


def hard_link_note(others: int) -> str:
    """What a write result adds when the file was a hard link: its other names were left as they were."""
    if not others:
        return ""
    return f" It was a hard link; its {others} other name(s) keep the old content."


write_file = ToolSpec(
    name="write_file",
    description="Write a whole file (creates it and its folders, or replaces it). Prefer edit_file for small changes.",
    args=WriteFileArgs,
    effect="write",
    level=2,
    run=_write_file,
    preview=_preview_write,
    write_targets=lambda args: [normalize(args.path)],
)


class EditFileArgs(ToolArgs):
    """Arguments of edit_file."""

    path: str = Field(description="File path, relative to the workspace.")
    old_text: str = Field(description="Exact text to replace; must occur exactly once in the file.")
    new_text: str = Field(description="Text to put in its place.")


def _ambiguous_message(text: str, old_text: str, shown: str, count: int) -> str:
    """Where ``old_text`` occurs, in which function, and for each place an ``old_text`` that names only it.

    A small model told only "include more lines" usually retries the same text; an example it can
    copy (the line above the match, then the match) gets it to the right place.
    """
    starts = _match_lines(text, old_text)
    lines = text.splitlines(keepends=True)
    places, examples = [], []
    for start in starts[:3]:
        where = _enclosing_function(text, start)
        places.append(f"line {start}" + (f" (in {where})" if where else ""))
        above = next((lines[n - 1] for n in range(start - 1, 0, -1) if lines[n - 1].strip()), None)
        if above is not None and text.count(above + old_text) == 1:
            label = f"the one in {where}" if where else f"the one at line {start}"
            examples.append(f"For {label}, old_text:\n{above}{old_text}")
    message = (
        f"old_text occurs {count} times in {shown}: {', '.join(places)}; it must occur exactly once. "
        "Include the line above it in old_text (and the same line at the start of new_text)."
    )
    return "\n".join([message, *examples])


def _already_made_message(text: str, new_text: str, shown: str) -> str:
    """Say that ``new_text`` is already in the file: the same edit made again would nest in itself.

    An edit that extends its old text (``for x in xs`` to ``for x in xs if x in seen``) still finds
    its old text after it is made, so a model that repeats it gets ``if x in seen if x in seen``.
    """
    line = text.count("\n", 0, text.index(new_text)) + 1
    return (
        f"new_text is already in {shown} at line {line}: this edit has been made, and making it again "
        "would put old_text's replacement inside itself. Nothing changed. Read the file to see it, "
        "then run the tests or make a different change."
    )


def _enclosing_function(text: str, line: int) -> str | None:
    """The name of the innermost function holding ``line`` of Python ``text``, if it parses."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    holders = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(holders, key=lambda node: node.lineno).name if holders else None


@dataclass(frozen=True)
class _PlannedEdit:
    """An edit worked out in memory: the file, its text before and after, the old and new text as matched."""

    path: Path
    shown: str
    text: str
    updated: str
    old_text: str
    new_text: str


def _plan_edit(args: EditFileArgs, ctx: ToolContext) -> _PlannedEdit:
    """Work the edit out without writing; refuses (``ToolError``) exactly as the edit would."""
    path = resolve(ctx.workspace, args.path, must_exist=True, for_write=True)
    shown = relative(ctx.workspace, path)
    text = read_text(ctx.workspace, path, shown)
    if not args.old_text:
        raise ToolError(
            "old_text is empty. Copy the exact lines to replace from the file (use write_file for new files)."
        )
    if args.old_text == args.new_text:
        raise ToolError("old_text and new_text are the same; nothing would change.")
    old_text, new_text = _match_line_endings(text, args.old_text, args.new_text)
    count = text.count(old_text)
    if count == 0:
        refuse_marker_match(shown, old_text, text)
        raise ToolError(_no_match_message(text, old_text, shown))
    if count > 1:
        raise ToolError(_ambiguous_message(text, old_text, shown, count))
    if old_text in new_text and new_text in text:
        raise ToolError(_already_made_message(text, new_text, shown))
    updated = text.replace(old_text, new_text, 1)
    refuse_markers(shown, text, updated)
    check_python_syntax(path, shown, updated, text)
    check_clean_edit(path, shown, updated, text)
    return _PlannedEdit(path, shown, text, updated, old_text, new_text)


def _edit_file(args: EditFileArgs, ctx: ToolContext) -> ToolResult:
    edit = _plan_edit(args, ctx)
    path, shown, text, old_text, new_text = edit.path, edit.shown, edit.text, edit.old_text, edit.new_text
    data = encode_text(edit.updated, shown)
    ctx.before_write(path)
    others = write_bytes(ctx.workspace, path, data, shown)
    first = text.count("\n", 0, text.index(old_text)) + 1
    new_lines = new_text.splitlines() or [""]
    shown_lines = new_lines[:8]
    tail = f"\n[... {len(new_lines) - 8} more changed lines]" if len(new_lines) > 8 else ""
    return ToolResult.success(
        f"Edited {shown}: replaced {len(old_text.splitlines()) or 1} line(s) at line {first} "
        f"with {len(new_lines)} line(s).{hard_link_note(others)} Now:\n{number_lines(shown_lines, first)}{tail}"
    )


def _preview_edit(args: EditFileArgs, ctx: ToolContext) -> list[FileChange]:
    edit = _plan_edit(args, ctx)
    return [FileChange(edit.shown, edit.text, edit.updated)]


def _match_line_endings(text: str, old_text: str, new_text: str) -> tuple[str, str]:
    """Models write LF line endings; in a file with CRLF ones, match and write CRLF instead."""
    if "\r\n" not in text or "\r" in old_text:
        return old_text, new_text
    return old_text.replace("\n", "\r\n"), new_text.replace("\r\n", "\n").replace("\n", "\r\n")


def _match_lines(text: str, needle: str) -> list[int]:
    starts: list[int] = []
    index = text.find(needle)
    while index != -1 and len(starts) < 10:
        starts.append(text.count("\n", 0, index) + 1)
        index = text.find(needle, index + 1)
    return starts


def _no_match_message(text: str, old_text: str, shown: str) -> str:
    message = f"old_text was not found in {shown} (0 matches); it must match the file exactly, including indentation."
    file_lines = text.splitlines()
    old_lines = [line for line in old_text.splitlines() if line.strip()]
    if not old_lines or len(file_lines) > _CLOSEST_SCAN_LIMIT:
        return message
    stripped = [line.strip() for line in file_lines]
    if "\n".join(line.strip() for line in old_lines) in "\n".join(s for s in stripped if s):
        message += " The same lines exist with different indentation or spacing."
    best = max(
        range(len(file_lines)),
        key=lambda i: difflib.SequenceMatcher(None, stripped[i], old_lines[0].strip(), autojunk=False).ratio(),
        default=None,
    )
    if best is None:
        return message
    window = file_lines[best : best + min(len(old_lines) + 2, 12)]
    return f"{message} The closest lines are:\n{number_lines(window, best + 1)}"


edit_file = ToolSpec(
    name="edit_file",
    description="Replace one exact piece of text in a file with new text. old_text must match exactly once.",
    args=EditFileArgs,
    effect="write",
    level=2,
    run=_edit_file,
    preview=_preview_edit,
    write_targets=lambda args: [normalize(args.path)],
)


class ListDirArgs(ToolArgs):
    """Arguments of list_dir."""

    path: str = Field(default=".", description="Folder, relative to the workspace.")
    depth: Annotated[int, at_most(4)] = Field(default=1, ge=1, le=4, description="How many folder levels to show.")


def _list_dir(args: ListDirArgs, ctx: ToolContext) -> ToolResult:
    root = resolve(ctx.workspace, args.path, must_exist=True)
    shown = relative(ctx.workspace, root)
    if not root.is_dir():
        raise ToolError(f"{shown!r} is a file, not a folder; use read_file to read it.")
    entries: list[str] = []
    _collect(root, ctx.workspace.resolve(), args.depth, entries)
    if not entries:
        return ToolResult.success(f"{shown}/ is empty.")
    more = ""
    if len(entries) > MAX_LIST_ENTRIES:
        more = f"\n[... more than {MAX_LIST_ENTRIES} entries; list a subfolder or use find]"
    return ToolResult.success("\n".join(entries[:MAX_LIST_ENTRIES]) + more)


def _collect(folder: Path, base: Path, depth: int, out: list[str]) -> None:
    """Append workspace-relative entries of ``folder`` (folders first), never descending through a symlink.

    A symlink is shown with its target when that is inside ``base`` and as ``name -> outside the
    workspace`` otherwise (``workspace.show_entry``).
    """
    for child in list_entries(folder):
        if len(out) > MAX_LIST_ENTRIES:
            return
        out.append(show_entry(child, base))
        if depth > 1 and child.is_dir() and not child.is_symlink():
            _collect(child, base, depth - 1, out)


list_dir = ToolSpec(
    name="list_dir",
    description="List the files and folders in a folder (folders end with '/').",
    args=ListDirArgs,
    effect="read",
    level=0,
    run=_list_dir,
)
