"""The client side of the warm process: hand a ``chrysalis run`` to it, or start, stop and ask it.

Standard library only, so a run that the daemon takes costs this process little more than the
interpreter's start. Whenever the daemon cannot take a run (none running, a stale socket, another
installation, stdin closed), ``run_through_daemon`` returns ``None`` and the command runs here as it
always did: the daemon only ever makes a run start sooner, never makes it fail.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from chrysalis.cli.daemon import wire

__all__ = ["IN_DAEMON_CHILD", "daemon_status", "run_through_daemon", "start_daemon", "stop_daemon"]

IN_DAEMON_CHILD = False
"""True in a run the daemon forked: that run must not hand itself to a daemon again."""
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
_READY_POLL_SECONDS = 0.05


def run_through_daemon(argv: list[str], home: Path) -> int | None:
    """Run the command line ``argv`` in the daemon serving ``home``; its exit code, or None to run it here."""
    if IN_DAEMON_CHILD or not wire.socket_path(home).exists():
        return None
    sock = _connect(home)
    if sock is None:
        return None
    with sock:
        try:
            socket.send_fds(sock, [b"F"], [0, 1, 2])
            wire.send_message(sock, _run_request(argv))
            reply = wire.read_message(sock)
        except (OSError, wire.WireError):
            return None
        if "started" not in reply:
            return None
        return _wait_for_exit(sock)


def _run_request(argv: list[str]) -> dict[str, Any]:
    umask = os.umask(0o22)
    os.umask(umask)
    streams = {
        name: {"encoding": stream.encoding, "errors": stream.errors}
        for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))
        if stream is not None
    }
    return {
        "op": "run",
        "argv": argv,
        "cwd": str(Path.cwd()),
        "env": dict(os.environ),
        "umask": umask,
        "streams": streams,
        "sys_path": sys.path,
        "fingerprint": wire.code_fingerprint(),
    }


def _wait_for_exit(sock: socket.socket) -> int:
    """Forward signals to the run until it reports its exit code; die as it died if it was killed."""
    forwarded: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        forwarded.append(signum)
        with contextlib.suppress(OSError):
            wire.send_message(sock, {"signal": signum})

    previous = {sig: signal.signal(sig, forward) for sig in _FORWARDED}
    try:
        while True:
            try:
                message = wire.read_message(sock)
            except (OSError, wire.WireError):
                break
            if "exit" in message:
                return int(message["exit"])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if forwarded:  # the run died of the signal we passed on: so do we, as an in-process run would have
        signal.signal(forwarded[-1], signal.SIG_DFL)
        os.kill(os.getpid(), forwarded[-1])
    sys.stderr.write(
        "error: the run ended without an exit code (it crashed in the chrysalis daemon; "
        "see daemon.log in $CHRYSALIS_HOME/logs).\n"
    )
    return 1


def _connect(home: Path) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(wire.socket_path(home)))
        if wire.peer_uid(sock) == os.getuid():  # the request carries the environment: only to our own user
            return sock
    except OSError:  # a socket left by a daemon that died, or one that is just exiting
        pass
    sock.close()
    return None


def _ask(home: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    sock = _connect(home)
    if sock is None:
        return None
    with sock:
        try:
            socket.send_fds(sock, [b"F"], [])
            wire.send_message(sock, request)
            return wire.read_message(sock)
        except (OSError, wire.WireError):
            return None


def daemon_status(home: Path) -> dict[str, Any] | None:
    """The running daemon's ``pid``, ``started_at``, ``served``, ``idle_seconds`` and ``python``; None if none runs."""
    return _ask(home, {"op": "ping"})


def stop_daemon(home: Path) -> int | None:
    """Ask the daemon of ``home`` to exit; its pid, or None if none was running."""
    reply = _ask(home, {"op": "stop"})
    return int(reply["stopping"]) if reply and "stopping" in reply else None


def start_daemon(home: Path, *, idle: float | None = None, wait: float | None = None) -> subprocess.Popen[bytes]:
    """Start a daemon for ``home`` detached from this terminal (it exits at once if one already runs).

    With ``wait``, poll (up to that many seconds) until it answers; the caller checks ``daemon_status``.
    """
    command = [sys.executable, "-P", "-m", "chrysalis.cli.daemon.server", "--home", str(home)]
    if idle is not None:
        command += ["--idle", str(idle)]
    log = wire.log_path(home)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as errors:  # an import error at start-up lands in the log, not nowhere
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
            close_fds=True,
        )
    if wait is not None:
        deadline = time.monotonic() + wait
        while daemon_status(home) is None and process.poll() is None and time.monotonic() < deadline:
            time.sleep(_READY_POLL_SECONDS)
    return process
