"""Keep every model-given path inside the workspace, and every listing from following a link out of it.

A model (or a prompt injection in a file it read) may ask for ``../../etc/passwd``, an absolute
path, ``~/.ssh/id_rsa``, ``$HOME/.bashrc``, or a symlink that points out of the workspace. Every
tool sends its paths through ``resolve``, which follows symlinks before checking, so none of these
can read or write outside. ``~`` and ``$VAR`` are never expanded: a path that starts with one is
refused, because the model surely meant the home folder or the variable, not a file named so.
Names with control, bidi or zero-width characters are refused too: what a person approves must be
the name that is written.

Write tools also refuse to write *through* a symlink (even one that stays inside): the policy
judges a write by the path the model named (``notes.md`` may be allowed in architect mode), so that
path must be the file changed. They refuse ``.git`` (a hook or ``core.fsmonitor`` there runs code
on the next git command) and ``.chrysalis/config.toml`` (a run must not raise its own level).
``chrysalis.tools.fileio`` does the opening and writing itself, without following a link.

Listings (``list_dir``, ``find``, ``grep``, the workspace map in the system prompt) never descend
into a symlinked folder and show a link that leaves the workspace only as ``name -> outside the
workspace``: its target's name and contents stay unknown.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from chrysalis.tools.base import ToolError

__all__ = [
    "MAX_NAME_BYTES",
    "MAX_PATH_CHARS",
    "OUTSIDE",
    "SKIP_DIRS",
    "link_target",
    "list_entries",
    "normalize",
    "relative",
    "resolve",
    "show_entry",
    "walk_files",
]

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

MAX_NAME_BYTES = 255
"""The longest file or folder name (UTF-8 bytes) a path may hold: Linux's NAME_MAX."""
MAX_PATH_CHARS = 1024
"""The longest path accepted; no real project needs more, and very long paths only probe for errors."""
OUTSIDE = "outside the workspace"
"""What listings show after ``->`` for a link that leaves the workspace, in place of its target."""

_EXPANSION = re.compile(r"\A(?:~|\$[A-Za-z_{(])")
"""A first component the shell would expand: ``~``, ``~user``, ``$HOME``, ``${HOME}``, ``$(cmd)``."""
_ODD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width), lone surrogate and line/paragraph separator characters."""
_PROTECTED_WRITES = ((".chrysalis", "config.toml"),)
"""Files a tool may never write (casefolded parts), besides anything under a ``.git`` folder."""


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
        ToolError: The path is empty, too long, oddly spelled (NUL, control or bidi characters, a backslash, a
            leading '~' or '$VAR'), escapes the workspace, or (with the flags) is missing, absolute, a
            symlink, or a file no tool may write (under ``.git``, ``.chrysalis/config.toml``).
    """
    _check_spelling(user_path)
    root = workspace.resolve()
    given = Path(user_path)
    alias = workspace.absolute()  # the workspace as the user named it, maybe through a symlink
    if given.is_absolute() and given.is_relative_to(alias):
        given = given.relative_to(alias)
    lexical = Path(posixpath.normpath(given if given.is_absolute() else root / given))
    try:
        resolved = lexical.resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop so
        raise ToolError(
            f"{user_path!r} is a symlink loop (a link that leads back to itself); it cannot be used."
        ) from None
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
    if for_write:
        _check_writable_name(relative(root, lexical), user_path)
    return resolved


def _check_spelling(user_path: str) -> None:
    """Refuse a path no honest request spells so: empty, too long, expandable, or with invisible characters."""
    if not user_path.strip():
        raise ToolError("The path is empty. Give a path relative to the workspace, e.g. 'src/main.py' or '.'.")
    if "\x00" in user_path:
        raise ToolError(f"The path {user_path!r} contains a NUL character.")
    if len(user_path) > MAX_PATH_CHARS:
        raise ToolError(f"The path is {len(user_path)} characters long; paths may have at most {MAX_PATH_CHARS}.")
    odd = next((ch for ch in user_path if unicodedata.category(ch) in _ODD_CATEGORIES), None)
    if odd is not None:
        raise ToolError(
            f"The path {user_path!r} contains the invisible or control character U+{ord(odd):04X} "
            f"({unicodedata.name(odd, 'unnamed')}); write the file name with visible characters only."
        )
    if "\\" in user_path:
        raise ToolError(f"The path {user_path!r} contains '\\'; separate folders with '/', e.g. 'src/main.py'.")
    if _EXPANSION.match(user_path):
        raise ToolError(
            f"The path {user_path!r} starts with '~' or '$': home folders and environment variables are not "
            "expanded, and only files inside the workspace can be used. Give a path relative to the workspace."
        )
    for part in user_path.split("/"):
        size = len(part.encode("utf-8", errors="surrogateescape"))
        if size > MAX_NAME_BYTES:
            raise ToolError(
                f"The name {part[:40]!r}... is {size} bytes long; a file or folder name may have at most "
                f"{MAX_NAME_BYTES}."
            )


def _check_writable_name(rel: str, user_path: str) -> None:
    """Refuse writing where a change would run code or change Chrysalis's own settings."""
    parts = tuple(part.casefold() for part in rel.split("/"))
    if ".git" in parts:
        raise ToolError(
            f"{user_path!r} is inside a .git folder: file tools never write there (a hook or config change "
            "would run code on the next git command). Use the git tools, or change files of the project."
        )
    if any(parts[-len(protected) :] == protected for protected in _PROTECTED_WRITES):
        raise ToolError(
            f"{user_path!r} holds Chrysalis's own settings for this project; a run may not change them. "
            "Ask the user to edit it."
        )


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
    """The workspace-relative POSIX form of ``path``, as tools show it to the model ('.' for the root).

    A path already inside the resolved workspace (as ``resolve`` returns it) is not resolved again: a
    link swapped in since must not change the name shown, nor make this fail.
    """
    root = workspace.resolve()
    plain = path.is_absolute() and ".." not in path.parts and path.is_relative_to(root)
    rel = (path if plain else path.resolve()).relative_to(root).as_posix()
    return rel or "."


def normalize(user_path: str) -> str:
    """The lexical workspace-relative form of a model-given path, for ``write_targets`` (no file access).

    The policy must judge a call before it runs, from the arguments alone, so this cannot look at
    the disk; ``resolve`` later refuses anything this form does not describe truthfully.
    """
    norm = posixpath.normpath(user_path.replace("\\", "/"))
    return "." if norm in ("", ".") else norm


def link_target(path: Path, workspace: Path) -> Path | None:
    """Where the symlink ``path`` leads (resolved) when that is inside ``workspace``; None if it leaves or loops."""
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError up to Python 3.12)
        return None
    return target if target.is_relative_to(workspace.resolve()) else None


def _is_folder(path: Path) -> bool:
    """A real folder: not a symlink to one (listings never descend through a link)."""
    return path.is_dir() and not path.is_symlink()


def show_entry(path: Path, workspace: Path) -> str:
    """How a listing shows ``path``: 'a.py', 'src/', 'alias.py -> real.py', or 'data -> outside the workspace'.

    ``path`` must lie (lexically) in ``workspace``, which must be resolved. A link's target is
    named only when it stays inside; a link that leaves the workspace, or loops, shows no target.
    """
    rel = path.relative_to(workspace).as_posix()
    if not path.is_symlink():
        return rel + "/" if path.is_dir() else rel
    target = link_target(path, workspace)
    if target is None:
        return f"{rel} -> {OUTSIDE}"
    slash = "/" if target.is_dir() else ""
    shown = target.relative_to(workspace).as_posix() or "."
    return f"{rel}{slash} -> {shown}{slash}"


def list_entries(folder: Path) -> list[Path]:
    """The entries of ``folder``, real folders first, then by name, without ``SKIP_DIRS``; [] if unreadable."""
    try:
        children = list(folder.iterdir())
    except OSError:
        return []
    return sorted((c for c in children if c.name not in SKIP_DIRS), key=lambda c: (not _is_folder(c), c.name))


def walk_files(root: Path, workspace: Path) -> Iterator[Path]:
    """Every file under ``root`` in a stable order, skipping ``SKIP_DIRS`` and symlinks that leave the workspace.

    Symlinked folders are not descended into (``os.walk`` does not follow links), and a file symlink
    is yielded only when its target is inside the workspace.
    """
    base = workspace.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() and link_target(path, base) is None:
                continue
            yield path
