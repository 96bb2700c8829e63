"""What the warm process (``chrysalis daemon``) and its clients share: where it listens, how they talk.

Standard library only: the client side runs before anything heavy is imported, which is the point.

The conversation on one Unix socket connection, each message a length-prefixed JSON object:

- the client first sends one byte carrying its stdin, stdout and stderr (``SCM_RIGHTS``), then the
  request: ``{"op": "run", "argv", "cwd", "env", "umask", "streams", "fingerprint"}``, or
  ``{"op": "ping"}``, or ``{"op": "stop"}``;
- for ``run`` the daemon answers ``{"started": PID}`` (a forked child now runs the command) or
  ``{"refused": REASON}`` (the client then runs the command itself); the client may then send
  ``{"signal": N}`` (Ctrl-C and friends, forwarded) and the child ends with ``{"exit": CODE}``.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import struct
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_MESSAGE_BYTES",
    "WireError",
    "code_fingerprint",
    "daemon_dir",
    "import_path",
    "lock_path",
    "log_path",
    "peer_uid",
    "read_message",
    "send_message",
    "socket_path",
]

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""A request carries the environment; anything larger is not a client of ours."""
_SUN_PATH_MAX = 100
"""Unix socket paths are limited to 108 bytes; deeper homes (pytest's temp folders) use /tmp instead."""
_LENGTH = struct.Struct(">I")
_PEERCRED = struct.Struct("3i")


class WireError(Exception):
    """The other side closed the connection or sent something that is not a message."""


def daemon_dir(home: Path) -> Path:
    """The daemon's private folder in ``home`` (mode 0700): its lock and log live here."""
    return home / "daemon"


def lock_path(home: Path) -> Path:
    """Held (``flock``) by the running daemon for its whole life: at most one per home."""
    return daemon_dir(home) / "daemon.lock"


def log_path(home: Path) -> Path:
    """What the daemon did: starts, stops, children that died of a signal."""
    return home / "logs" / "daemon.log"


def socket_path(home: Path) -> Path:
    """Where the daemon of ``home`` listens (a private folder under /tmp when ``home`` is too deep)."""
    path = daemon_dir(home) / "daemon.sock"
    if len(os.fsencode(path)) <= _SUN_PATH_MAX:
        return path
    digest = hashlib.sha256(os.fsencode(home.resolve())).hexdigest()[:16]
    return Path("/tmp") / f"chrysalis-{os.getuid()}" / f"{digest}.sock"


def code_fingerprint() -> str:
    """What the running code is: the interpreter, the installed packages and chrysalis's own files.

    A daemon serves only clients with the same fingerprint, and one whose code changed on disk
    since it started (an upgrade, an edit of a checkout) exits instead of running stale code.
    Installed packages are named by the entries of each import folder (an upgrade renames its
    ``*.dist-info``); chrysalis's files by their modification times. Folder times are not used:
    compiling a module the first time creates ``__pycache__`` and would change them. About 3 ms.
    """
    package = Path(__file__).resolve().parent.parent
    parts = [sys.executable, sys.version, str(package)]
    for folder in import_path():
        try:
            names = sorted(entry.name for entry in Path(folder or ".").iterdir() if entry.name != "__pycache__")
        except OSError:
            continue
        parts.append(f"{folder}:{','.join(names)}")
    for source in sorted(package.rglob("*.py")):
        parts.append(f"{source.relative_to(package)}:{source.stat().st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def import_path() -> list[str]:
    """Where modules come from, less the folder of the script that started the interpreter.

    That folder differs between the console script and ``python -m``; the daemon, started with
    ``-P``, has none.
    """
    return list(sys.path) if sys.flags.safe_path else sys.path[1:]


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process at the other end: each side talks only to its own user."""
    _, uid, _ = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    return int(uid)


def send_message(sock: socket.socket, message: dict[str, Any]) -> None:
    """Send one JSON object, prefixed with its length."""
    body = json.dumps(message).encode()
    sock.sendall(_LENGTH.pack(len(body)) + body)


def read_message(sock: socket.socket) -> dict[str, Any]:
    """Read one JSON object.

    Raises:
        WireError: the connection closed, or what came is not a message of ours.
    """
    (length,) = _LENGTH.unpack(_read_exactly(sock, _LENGTH.size))
    if length > MAX_MESSAGE_BYTES:
        raise WireError(f"message of {length} bytes is over the {MAX_MESSAGE_BYTES}-byte limit")
    try:
        message = json.loads(_read_exactly(sock, length))
    except ValueError as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("not a JSON object")
    return message


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(size)
        if not chunk:
            raise WireError("the connection closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
