"""Open, write and delete workspace files without following a link, and write them atomically.

``workspace.resolve`` checks a path when a tool call starts; a command running at the same time
(or a file that changes between the check and the use) could then swap a folder on the way for a
symlink to somewhere else. So the file tools never hand a path string to ``open``: they open the
workspace folder and walk down one name at a time with ``O_NOFOLLOW``, so a symlink that appeared
since the check makes the call fail instead of leading out.

Writes go to a new temporary file in the same folder, which is then renamed over the old name
(``os.replace``). That makes every write atomic (a crash leaves the old content or the new, never
half of it), keeps the file's permission bits, and breaks a hard link: when the file has other
names (``st_nlink > 1``), perhaps outside the workspace, only the workspace's name gets the new
content and the other names keep the old one. A name that is a symlink, a folder or a special file
(a FIFO, a device) is never written.

Reads accept only regular files (a FIFO would block the run forever) of at most ``MAX_READ_BYTES``.
Reading a hard-linked file is allowed: the link is a file of the workspace, made by whoever could
already read its target, and the sandbox keeps commands from making new ones to files outside.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path

from chrysalis.tools.base import ToolError

__all__ = ["MAX_READ_BYTES", "encode_text", "read_bytes", "remove_file", "write_bytes"]

MAX_READ_BYTES = 16 * 1024 * 1024
"""Files larger than this are not read whole by a tool: no source file is, and the run's memory is finite."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(workspace: Path, path: Path) -> tuple[Path, tuple[str, ...]]:
    """The resolved workspace and the names leading from it to ``path``, which must lie inside it lexically."""
    root = workspace.resolve()
    try:
        return root, path.relative_to(root).parts
    except ValueError:
        raise ToolError(f"{path} is outside the workspace; only files inside it can be used.") from None


def _open_folders(root: Path, names: Sequence[str], shown: str, *, create: bool) -> int:
    """A descriptor of the folder ``root/names...``, reached without following any symlink.

    With ``create``, missing folders are made on the way (as ``mkdir -p`` would).
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names:
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:  # made meanwhile by someone else: open it as it is now
                    pass
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise _not_a_folder(exc, fd, name, shown) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _not_a_folder(exc: OSError, folder: int, name: str, shown: str) -> OSError | ToolError:
    """The error for a name on the way that could not be opened as a folder: a symlink (ELOOP or ENOTDIR), or a file."""
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return exc
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        is_link = exc.errno == errno.ELOOP
    if is_link:
        return ToolError(f"The folder {name!r} on the way to {shown!r} is a symlink; nothing was read or written.")
    return ToolError(f"{name!r} on the way to {shown!r} is a file, not a folder.")


def read_bytes(workspace: Path, path: Path, shown: str, *, limit: int = MAX_READ_BYTES) -> bytes:
    """The content of the regular file ``path`` (resolved, inside ``workspace``), opened without following links.

    Raises:
        ToolError: The file is a folder, a special file, larger than ``limit``, or a symlink appeared on the way.
        OSError: The file is missing or unreadable.
    """
    root, names = _parts(workspace, path)
    if not names:
        raise ToolError(f"{shown!r} is a directory; use list_dir to see what is in it.")
    folder = _open_folders(root, names[:-1], shown, create=False)
    try:
        fd = os.open(names[-1], _READ_FLAGS, dir_fd=folder)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise ToolError(f"{shown!r} is now a symlink; it was not read.") from None
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(f"{shown!r} is a directory; use list_dir to see what is in it.")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"{shown!r} is not a regular file (a pipe, socket or device); it cannot be read.")
        if info.st_size > limit:
            raise ToolError(f"{shown!r} is {info.st_size} bytes, more than a tool reads ({limit}); it was not read.")
        return file.read(limit + 1)[:limit]


def encode_text(text: str, shown: str) -> bytes:
    """``text`` as UTF-8, or a ``ToolError`` naming the character that cannot be written (a lone surrogate)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise ToolError(
            f"The content for {shown} has the character U+{ord(bad):04X} at position {exc.start}, which cannot be "
            "written as UTF-8 (a lone surrogate); nothing was written."
        ) from None


def write_bytes(workspace: Path, path: Path, data: bytes, shown: str) -> int:
    """Put ``data`` at ``path`` (inside ``workspace``, no symlink on the way) atomically; make missing folders.

    Returns:
        How many other names the file had (hard links), which keep the old content; 0 for a new file.

    Raises:
        ToolError: The name is a symlink, a folder or a special file, the file is read-only, or a folder on the
            way is a symlink or a file.
    """
    root, names = _parts(workspace, path)
    if not names:
        raise ToolError(f"{shown!r} is a directory; give a file path.")
    folder = _open_folders(root, names[:-1], shown, create=True)
    try:
        return _replace(folder, names[-1], data, shown)
    finally:
        os.close(folder)


def _replace(folder: int, name: str, data: bytes, shown: str) -> int:
    """Write ``data`` to a new file in ``folder`` and rename it to ``name``; return the old file's other names."""
    old = _existing(folder, name, shown)
    temp = f".chrysalis-{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, _TEMP_FLAGS, 0o600 if old else 0o666, dir_fd=folder)  # a new file gets the umask's mode
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if old is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(old.st_mode) & 0o777)
                _keep_owner(file.fileno(), old)
            os.fsync(file.fileno())
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=folder)
        except OSError:
            pass
        raise
    return old.st_nlink - 1 if old is not None else 0


def _existing(folder: int, name: str, shown: str) -> os.stat_result | None:
    """The current file's status (not following a link), or None when there is none; refuses what may not be written."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise ToolError(f"{shown!r} is a symlink; nothing was written. Write to the file it points to instead.")
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{shown!r} is a directory; give a file path.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{shown!r} is not a regular file (a pipe, socket or device); it cannot be written.")
    if os.access in os.supports_follow_symlinks and not os.access(name, os.W_OK, dir_fd=folder, follow_symlinks=False):
        raise ToolError(f"{shown!r} is read-only; it was not changed.")
    return info


def _keep_owner(fd: int, old: os.stat_result) -> None:
    if (old.st_uid, old.st_gid) == (os.getuid(), os.getgid()):
        return
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except OSError:  # not ours to give away: the file becomes the writer's, as any editor's save would make it
        pass


def remove_file(workspace: Path, path: Path, shown: str) -> None:
    """Delete the file ``path`` (inside ``workspace``), refusing symlinks on the way and anything but a regular file."""
    root, names = _parts(workspace, path)
    if not names:
        raise ToolError(f"{shown!r} is a directory; only files can be deleted.")
    folder = _open_folders(root, names[:-1], shown, create=False)
    try:
        info = _existing(folder, names[-1], shown)
        if info is None:
            raise ToolError(f"{shown!r} does not exist; nothing was deleted.")
        os.unlink(names[-1], dir_fd=folder)
    finally:
        os.close(folder)
