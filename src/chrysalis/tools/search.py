"""Find files by glob and lines by regex, inside the workspace only.

Both walk the tree themselves (``workspace.walk_files``) rather than calling ``Path.glob`` or an
external grep: that keeps the order stable, skips caches and ``.git``, and never follows a
symlink out of the workspace. A pattern without '/' matches file names at any depth, because
that is what a small model means by ``test_*.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import Field

from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, at_most
from chrysalis.tools.fileio import read_bytes
from chrysalis.tools.workspace import link_target, resolve, walk_files

__all__ = ["FindArgs", "GrepArgs", "find", "glob_regex", "grep"]

MAX_FIND_RESULTS = 200
MAX_LINE_CHARS = 200
MAX_GREP_FILE_BYTES = 2_000_000
"""Larger files are skipped by grep: they are data, not code, and would flood the model's context."""


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob with ``**`` (any folders), ``*``, ``?`` and ``[...]`` into a regex over POSIX paths."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _matcher(pattern: str) -> tuple[re.Pattern[str], bool]:
    """The compiled glob and whether it matches the file name only (no '/' in the pattern)."""
    clean = pattern.strip().removeprefix("./")
    if not clean:
        raise ToolError("The glob pattern is empty; use e.g. '**/*.py'.")
    if clean.startswith("/") or ".." in clean.split("/"):
        raise ToolError(f"The pattern {pattern!r} must be relative to the workspace, without '..'.")
    return glob_regex(clean), "/" not in clean


def _matches(rel: str, regex: re.Pattern[str], name_only: bool) -> bool:
    return bool(regex.match(rel.rsplit("/", 1)[-1] if name_only else rel))


class FindArgs(ToolArgs):
    """Arguments of find."""

    pattern: str = Field(description="Glob, e.g. '**/*.py', 'src/*.js' or 'test_*.py' (any folder).")


def _find(args: FindArgs, ctx: ToolContext) -> ToolResult:
    regex, name_only = _matcher(args.pattern)
    root = ctx.workspace.resolve()
    hits = [
        rel for path in walk_files(root, root) if _matches(rel := path.relative_to(root).as_posix(), regex, name_only)
    ]
    if not hits:
        return ToolResult.success(f"No files match {args.pattern!r}.")
    more = (
        f"\n[... {len(hits) - MAX_FIND_RESULTS} more; use a narrower pattern]" if len(hits) > MAX_FIND_RESULTS else ""
    )
    return ToolResult.success("\n".join(hits[:MAX_FIND_RESULTS]) + more)


find = ToolSpec(
    name="find",
    description="Find files by glob pattern. A pattern without '/' matches file names in every folder.",
    args=FindArgs,
    effect="read",
    level=0,
    run=_find,
)


class GrepArgs(ToolArgs):
    """Arguments of grep."""

    pattern: str = Field(description="Python regular expression to search for.")
    path: str = Field(default=".", description="Folder, file or glob to search, e.g. 'src' or '**/*.py'.")
    max_matches: Annotated[int, at_most(500)] = Field(
        default=50, ge=1, le=500, description="Stop after this many matching lines."
    )
    ignore_case: bool = Field(default=False, description="Match upper and lower case alike.")


def _files_for(spec: str, workspace: Path) -> list[Path]:
    """The files ``spec`` names: one file, every file in a folder, or every file matching a glob."""
    root = workspace.resolve()
    if not any(ch in spec for ch in "*?["):
        target = resolve(workspace, spec, must_exist=True)
        return [target] if target.is_file() else list(walk_files(target, root))
    regex, name_only = _matcher(spec)
    return [p for p in walk_files(root, root) if _matches(p.relative_to(root).as_posix(), regex, name_only)]


def _grep(args: GrepArgs, ctx: ToolContext) -> ToolResult:
    try:
        regex = re.compile(args.pattern, re.IGNORECASE if args.ignore_case else 0)
    except re.error as exc:
        raise ToolError(
            f"Bad regular expression {args.pattern!r}: {exc}. Escape special characters like ( [ . * with '\\'."
        ) from None
    root = ctx.workspace.resolve()
    files = _files_for(args.path, ctx.workspace)
    out: list[str] = []
    for path in files:
        for number, line in _search_file(path, root, regex):
            shown = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "..."
            out.append(f"{path.relative_to(root).as_posix()}:{number}: {shown}")
            if len(out) >= args.max_matches:
                out.append(f"[stopped after {args.max_matches} matches; narrow the pattern or path]")
                return ToolResult.success("\n".join(out))
    if not out:
        return ToolResult.success(f"No matches for {args.pattern!r} in {len(files)} file(s).")
    return ToolResult.success("\n".join(out))


def _search_file(path: Path, root: Path, regex: re.Pattern[str]) -> list[tuple[int, str]]:
    """The matching lines of one file; opened without following links, so a link swapped in meanwhile is skipped."""
    real = link_target(path, root) if path.is_symlink() else path
    if real is None:
        return []
    try:
        data = read_bytes(root, real, path.name, limit=MAX_GREP_FILE_BYTES)
    except (OSError, ToolError):  # unreadable, too large, special, or changed while searching: nothing to report
        return []
    if b"\x00" in data[:8192]:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [(n, line.strip()) for n, line in enumerate(lines, start=1) if regex.search(line)]


grep = ToolSpec(
    name="grep",
    description="Search file contents with a regular expression; shows 'path:line: text' for each match.",
    args=GrepArgs,
    effect="read",
    level=0,
    run=_grep,
)
