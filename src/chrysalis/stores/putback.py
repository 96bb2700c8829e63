"""Putting files back: the file-system steps of undo (``stores/checkpoints.py`` decides what goes where).

Every step refuses to write through a folder that has become a link, and writes by atomic replace.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path, PurePosixPath

from chrysalis.stores.shadow import Change

__all__ = ["GITLINK", "delete_created", "remove_empty_folders", "safe_target", "write_bytes", "write_entry"]

GITLINK = "160000"
"""A nested repository's mode in a git tree: undo leaves it alone."""
_SYMLINK = "120000"
_CTIME_SLACK_S = 1.0
"""File-system clocks are coarse: a file made just after a command started may look a little older."""


def write_bytes(target: Path, content: bytes, mode: int | None) -> None:
    """Replace ``target`` atomically (a new file renamed over it, so no link is ever written through)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".undo")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        if mode is not None:
            Path(tmp).chmod(mode)
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def safe_target(root: Path, rel: str) -> Path:
    """``root / rel``, after checking that no folder on the way is a link (undo never writes through one)."""
    folder = root
    for part in PurePosixPath(rel).parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise OSError(f"{folder.relative_to(root)} is a link now; undo does not write through it")
    return root / rel


def delete_created(root: Path, rel: str, started: float) -> bool:
    """Delete a file a command created, and the folders left empty; False when it is not the run's to delete.

    A file older than the command (by its inode change time) was not created by it: it was moved
    in from an ignored folder, or a changed ``.gitignore`` let the snapshot see it. Undo leaves it.
    """
    target = safe_target(root, rel)
    try:
        info = target.lstat()
    except FileNotFoundError:
        return True
    if stat.S_ISDIR(info.st_mode) or info.st_ctime < started - _CTIME_SLACK_S:
        return False
    target.unlink()
    folder = target.parent
    while folder != root:
        try:
            folder.rmdir()
        except OSError:  # not empty: the user's, or still holding other files
            break
        folder = folder.parent
    return True


def write_entry(root: Path, change: Change, contents: dict[str, bytes]) -> bool:
    """Put back a file or link as the snapshot before the command had it; False for a nested repository."""
    if change.mode == GITLINK:
        return False
    target = safe_target(root, change.path)
    if change.mode == _SYMLINK:
        if target.is_symlink() or target.is_file():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(os.fsdecode(contents[change.blob]))
        return True
    write_bytes(target, contents[change.blob], mode_for(target, executable=change.mode == "100755"))
    return True


def mode_for(target: Path, *, executable: bool) -> int:
    """The file's permissions now with the executable bits git recorded (git keeps no other bits)."""
    try:
        info = target.lstat()
    except FileNotFoundError:
        return 0o755 if executable else 0o644
    current = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o644
    return current | ((current & 0o444) >> 2) if executable else current & ~0o111


def remove_empty_folders(top: Path) -> None:
    """Remove ``top`` and the folders below it, bottom up, wherever nothing is left in them."""
    if not top.is_dir() or top.is_symlink():
        return
    for folder, _, _ in os.walk(top, topdown=False):
        with contextlib.suppress(OSError):  # not empty (or not ours to remove): keep it
            Path(folder).rmdir()
