"""Keep every model-given path inside the workspace.

A model (or a prompt injection in a file it read) may ask for ``../../etc/passwd``, an absolute
path, or a symlink that points out of the workspace. Every tool sends its paths through
``resolve``, which follows symlinks before checking, so none of these can read or write outside.
Write tools also refuse to write *through* a symlink: the policy judges a write by the path the
model named (``notes.md`` may be allowed in architect mode), so that path must be the file changed.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from pathlib import Path

from chrysalis.tools.base import ToolError

__all__ = ["SKIP_DIRS", "normalize", "relative", "resolve", "walk_files"]

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
"""Folders listings and searches skip: tool output, caches and dependencies, never the model's business."""


def resolve(workspace: Path, user_path: str, *, must_exist: bool = False, for_write: bool = False) -> Path:
    """Turn a model-given path into an absolute path that is surely inside ``workspace``.

    Args:
        workspace: The folder the run may touch.
        user_path: The path as the model wrote it: relative to the workspace, or absolute inside it.
        must_exist: Raise a ``ToolError`` that says how to look around when the path does not exist.
        for_write: Refuse absolute paths and paths through a symlink, so that the relative path the policy
            judged (``write_targets``, which cannot see the disk) is exactly the file written.

    Returns:
        The resolved absolute path (symlinks followed).

    Raises:
        ToolError: The path is empty, escapes the workspace, or (with the flags) is missing, absolute or a symlink.
    """
    if not user_path.strip():
        raise ToolError("The path is empty. Give a path relative to the workspace, e.g. 'src/main.py' or '.'.")
    if "\x00" in user_path:
        raise ToolError(f"The path {user_path!r} contains a NUL character.")
    root = workspace.resolve()
    given = Path(user_path)
    alias = workspace.absolute()  # the workspace as the user named it, maybe through a symlink
    if given.is_absolute() and given.is_relative_to(alias):
        given = given.relative_to(alias)
    lexical = Path(posixpath.normpath(given if given.is_absolute() else root / given))
    resolved = lexical.resolve()
    if not resolved.is_relative_to(root):
        raise ToolError(_escape_message(user_path, given, lexical, root))
    if must_exist and not resolved.exists():
        raise ToolError(f"{user_path!r} does not exist. Use list_dir or find to see which files exist.")
    if for_write and Path(user_path).is_absolute():
        raise ToolError(f"Give the path relative to the workspace: {relative(root, lexical)!r}, not {user_path!r}.")
    if for_write and resolved != lexical:
        raise ToolError(
            f"{user_path!r} goes through a symlink to {relative(root, resolved)!r}; "
            "write to that path directly instead."
        )
    return resolved


def _escape_message(user_path: str, given: Path, lexical: Path, root: Path) -> str:
    if given.is_absolute() and not lexical.is_relative_to(root):
        return (
            f"{user_path!r} is an absolute path outside the workspace ({root}). "
            "Only files inside the workspace can be used; give a path relative to it."
        )
    if not lexical.is_relative_to(root):
        return f"{user_path!r} uses '..' to leave the workspace. Only files inside the workspace can be used."
    return f"{user_path!r} is a symlink (or inside one) that points outside the workspace; it cannot be used."


def relative(workspace: Path, path: Path) -> str:
    """The workspace-relative POSIX form of ``path``, as tools show it to the model ('.' for the root)."""
    rel = path.resolve().relative_to(workspace.resolve()).as_posix()
    return rel or "."


def normalize(user_path: str) -> str:
    """The lexical workspace-relative form of a model-given path, for ``write_targets`` (no file access).

    The policy must judge a call before it runs, from the arguments alone, so this cannot look at
    the disk; ``resolve`` later refuses anything this form does not describe truthfully.
    """
    norm = posixpath.normpath(user_path.replace("\\", "/"))
    return "." if norm in ("", ".") else norm


def walk_files(root: Path, workspace: Path) -> Iterator[Path]:
    """Every file under ``root`` in a stable order, skipping ``SKIP_DIRS`` and symlinks that leave the workspace."""
    base = workspace.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() and not path.resolve().is_relative_to(base):
                continue
            yield path
