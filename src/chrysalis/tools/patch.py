"""Apply a unified diff to the workspace, in pure Python, all hunks or nothing.

Small models write diffs with wrong line numbers and counts, so the parser ignores the counts and
the applier looks for each hunk's old lines nearest to where the header says, then (failing that)
ignoring trailing whitespace. Every file's new content is computed in memory first; only when
every hunk of every file applies are the files written, so a failed patch leaves nothing half done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from chrysalis.tools.base import FileChange, ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.clean_edit import check_clean_edit
from chrysalis.tools.fileio import encode_text, remove_file, write_bytes
from chrysalis.tools.files import refuse_marker_match, refuse_markers
from chrysalis.tools.syntax import check_python_syntax
from chrysalis.tools.text import read_text
from chrysalis.tools.workspace import normalize, relative, resolve

__all__ = ["ApplyPatchArgs", "FilePatch", "Hunk", "apply_hunks", "apply_patch", "parse_patch"]

_HUNK_HEADER = re.compile(r"^@@ -(\d{1,9})(?:,\d+)? \+\d+(?:,\d+)? @@")
"""A hunk header; only the old start is read, and a start of 10 digits or more counts as none (0)."""
_DEV_NULL = "/dev/null"


@dataclass
class Hunk:
    """One ``@@`` block: the lines it expects (context and removed) and the lines it leaves."""

    header: str
    old_start: int
    old: list[str] = field(default_factory=list[str])
    new: list[str] = field(default_factory=list[str])
    new_no_eol: bool = False
    """The new side ends without a final newline (``\\ No newline at end of file`` after it)."""


@dataclass
class FilePatch:
    """The hunks for one file; ``old_path``/``new_path`` is None for a created/deleted file."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list[Hunk])

    @property
    def path(self) -> str:
        """The path this patch writes (the old one for a deletion)."""
        target = self.new_path or self.old_path
        assert target is not None  # parse_patch never builds a patch with neither
        return target


def _header_path(line: str) -> str | None:
    raw = line[4:].split("\t")[0].strip()
    if raw == _DEV_NULL:
        return None
    if raw[:2] in ("a/", "b/"):
        raw = raw[2:]
    if not raw:
        raise ToolError(f"The file header {line!r} names no file.")
    return raw


def parse_patch(text: str) -> list[FilePatch]:
    """Parse a unified diff into file patches; hunk line counts are ignored (models get them wrong).

    Raises:
        ToolError: The text has no ``---``/``+++`` file headers or a hunk outside any file.
    """
    lines = [line.rstrip("\r") for line in text.splitlines()]
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _header_path(line), _header_path(lines[i + 1])
            if old is None and new is None:
                raise ToolError("A file header has /dev/null on both sides.")
            patches.append(FilePatch(old, new))
            i += 2
        elif line.startswith("@@"):
            if not patches:
                raise ToolError("The patch has a hunk (@@) before any '--- a/path' / '+++ b/path' header.")
            i = _parse_hunk(lines, i, patches[-1])
        else:
            i += 1
    if not patches:
        raise ToolError(
            "This is not a unified diff: it needs '--- a/PATH' and '+++ b/PATH' lines, then '@@ -N,M +N,M @@' "
            "hunks whose lines start with ' ' (context), '-' (removed) or '+' (added)."
        )
    return patches


def _parse_hunk(lines: list[str], i: int, patch: FilePatch) -> int:
    match = _HUNK_HEADER.match(lines[i])
    hunk = Hunk(header=lines[i], old_start=int(match.group(1)) if match else 0)
    patch.hunks.append(hunk)
    i += 1
    last = ""
    while i < len(lines):
        line = lines[i]
        if line.startswith(("@@", "diff ")) or (
            line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
        ):
            break
        tag, body = (line[:1], line[1:]) if line else (" ", "")
        if tag == "\\":
            hunk.new_no_eol = hunk.new_no_eol or last in (" ", "+")
        elif tag in (" ", "-", "+"):
            if tag != "+":
                hunk.old.append(body)
            if tag != "-":
                hunk.new.append(body)
            last = tag
        else:
            break
        i += 1
    return i


def _find(lines: list[str], block: list[str], hint: int, start: int) -> int | None:
    """Where ``block`` occurs in ``lines`` at or after ``start``, nearest to ``hint``; exact, then loose."""
    if not block:
        return min(max(hint, start), len(lines))
    size = len(block)
    positions = range(start, len(lines) - size + 1)
    for loose in (False, True):
        found = [p for p in positions if _block_at(lines, block, p, loose)]
        if found:
            return min(found, key=lambda p: abs(p - hint))
    return None


def _block_at(lines: list[str], block: list[str], at: int, loose: bool) -> bool:
    """Whether ``block`` sits at line ``at``; ``loose`` ignores trailing whitespace."""
    if loose:
        return all(lines[at + k].rstrip() == line.rstrip() for k, line in enumerate(block))
    return lines[at : at + len(block)] == block


def _already_made_at(lines: list[str], hunk: Hunk, at: int) -> int | None:
    """Where ``hunk``'s new lines already stand around its old ones found at ``at``, or None.

    A hunk that only adds lines before or after its context (no removed line) still finds that
    context once applied, so a model that sends the same patch twice would get the lines twice,
    as with ``edit_file``'s "already made" (``files._already_made_message``).
    """
    size = len(hunk.old)
    if not hunk.old or len(hunk.new) <= size:
        return None
    for k in range(len(hunk.new) - size + 1):
        start = at - k
        fits = 0 <= start <= len(lines) - len(hunk.new)
        if fits and hunk.new[k : k + size] == hunk.old and _block_at(lines, hunk.new, start, True):
            return start
    return None


def apply_hunks(text: str, patch: FilePatch) -> str:
    """Apply every hunk of ``patch`` to ``text``, or raise a ``ToolError`` naming the hunk that failed."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    trailing = text.endswith("\n") or not text
    offset = 0
    cursor = 0
    for number, hunk in enumerate(patch.hunks, start=1):
        hint = max(hunk.old_start - 1, 0) + offset
        at = _find(lines, hunk.old, hint, cursor)
        if at is None:
            expected = "\n".join(hunk.old[:12])
            raise ToolError(
                f"Hunk {number} of {len(patch.hunks)} for {patch.path} ({hunk.header}) does not apply: "
                f"these lines were not found in the file:\n{expected}\n"
                "Read the file again and make the patch from its current text. Nothing was changed."
            )
        made = _already_made_at(lines, hunk, at)
        if made is not None:
            raise ToolError(
                f"Hunk {number} of {len(patch.hunks)} for {patch.path} ({hunk.header}) has already been applied: "
                f"its new lines are in the file at line {made + 1}, and applying it again would add its "
                "lines a second time. Nothing was changed. Read the file to see it, then run the tests "
                "or make a different change."
            )
        lines[at : at + len(hunk.old)] = hunk.new
        offset += len(hunk.new) - len(hunk.old)
        cursor = at + len(hunk.new)
        if cursor == len(lines):
            trailing = not hunk.new_no_eol
    if not lines:
        return ""
    return newline.join(lines) + (newline if trailing else "")


class ApplyPatchArgs(ToolArgs):
    """Arguments of apply_patch."""

    patch: str = Field(description="A unified diff ('--- a/file', '+++ b/file', '@@ ... @@' hunks).")


def _patch_targets(args: ApplyPatchArgs) -> list[str]:
    try:
        patches = parse_patch(args.patch)
    except ToolError:
        return []
    targets: list[str] = []
    for patch in patches:
        for path in (patch.old_path, patch.new_path):
            if path is not None and normalize(path) not in targets:
                targets.append(normalize(path))
    return targets


def _plan(patch: FilePatch, ctx: ToolContext) -> tuple[Path, str | None, str]:
    """The absolute path, the new content (None to delete) and a one-line summary, changing nothing."""
    path = resolve(ctx.workspace, patch.path, for_write=True)
    shown = relative(ctx.workspace, path)
    if patch.old_path is None:
        if path.exists():
            raise ToolError(f"The patch creates {shown}, but it already exists. Patch it with '--- a/{shown}'.")
        if any(hunk.old for hunk in patch.hunks):
            raise ToolError(f"The patch creates {shown} but has context or removed lines; a new file has only '+'.")
        created = apply_hunks("", patch)
        refuse_markers(shown, "", created)
        check_python_syntax(path, shown, created, None)
        check_clean_edit(path, shown, created, None)
        return path, created, f"created {shown}"
    source = resolve(ctx.workspace, patch.old_path, must_exist=True, for_write=True)
    text = read_text(ctx.workspace, source, relative(ctx.workspace, source))
    if patch.new_path is None:
        return path, None, f"deleted {shown}"
    if source != path:
        raise ToolError("Renaming files in a patch is not supported; patch the file, then use shell to move it.")
    refuse_marker_match(shown, "\n".join(line for hunk in patch.hunks for line in hunk.old), text)
    patched = apply_hunks(text, patch)
    refuse_markers(shown, text, patched)
    check_python_syntax(path, shown, patched, text)
    check_clean_edit(path, shown, patched, text)
    return path, patched, f"patched {shown} ({len(patch.hunks)} hunk(s))"


def _plan_all(args: ApplyPatchArgs, ctx: ToolContext) -> dict[Path, tuple[str | None, str]]:
    """Each file's new content (None to delete) and summary, every hunk applied in memory; changes nothing."""
    planned: dict[Path, tuple[str | None, str]] = {}
    for patch in parse_patch(args.patch):
        path, content, summary = _plan(patch, ctx)
        if path in planned:
            raise ToolError(f"The patch changes {relative(ctx.workspace, path)} twice; put all its hunks together.")
        planned[path] = (content, summary)
    return planned


def _preview_patch(args: ApplyPatchArgs, ctx: ToolContext) -> list[FileChange]:
    changes: list[FileChange] = []
    for path, (content, _summary) in _plan_all(args, ctx).items():
        shown = relative(ctx.workspace, path)
        old = read_text(ctx.workspace, path, shown) if path.exists() else None
        changes.append(FileChange(shown, old, content))
    return changes


def _apply_patch(args: ApplyPatchArgs, ctx: ToolContext) -> ToolResult:
    planned = {
        path: (None if content is None else encode_text(content, relative(ctx.workspace, path)), summary)
        for path, (content, summary) in _plan_all(args, ctx).items()
    }
    summaries: list[str] = []
    for path, (data, summary) in planned.items():
        shown = relative(ctx.workspace, path)
        ctx.before_write(path)
        if data is None:
            remove_file(ctx.workspace, path, shown)
            summaries.append(summary)
        else:
            others = write_bytes(ctx.workspace, path, data, shown)
            note = f" (a hard link: its {others} other name(s) keep the old content)" if others else ""
            summaries.append(summary + note)
    return ToolResult.success("Applied the patch: " + "; ".join(summaries) + ".")


apply_patch = ToolSpec(
    name="apply_patch",
    description="Apply a unified diff to one or more files (also creates files). All hunks apply or none do.",
    args=ApplyPatchArgs,
    effect="write",
    level=2,
    run=_apply_patch,
    preview=_preview_patch,
    write_targets=_patch_targets,
)
