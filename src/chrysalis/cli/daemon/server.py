"""The warm process: imports the agent's stack once, then forks a child per ``chrysalis run``.

Most of a cold ``chrysalis run``'s time before its first model request is importing pydantic-ai and
the ``openai`` SDK (about 1.2 s here; ``bench/startup.py`` shows the split). The daemon pays that
once. Each run is a ``fork`` of it (the pattern of CPython's multiprocessing ``forkserver`` and
Android's zygote): the child takes the client's stdin, stdout and stderr (passed over the socket),
working folder, environment, umask and arguments, runs the ordinary command line, and reports its
exit code. Nothing of one run survives into the next: each child is a fresh copy of a process that
has imported modules and done nothing else (no settings, stores, threads or event loop).

    python -m chrysalis.cli.daemon.server --home DIR [--idle SECONDS]

(``chrysalis daemon start`` starts it detached; it exits after ``--idle`` seconds without a
request, on ``chrysalis daemon stop``, or when its code changed on disk.)
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib
import io
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from chrysalis.cli.daemon import wire

__all__ = ["OPTIONAL_PRELOAD", "PRELOAD", "main"]

PRELOAD = (
    "chrysalis.cli.app",
    "chrysalis.cli.run_cmd",
    "chrysalis.cli.render",
    "chrysalis.agent.session",
    "chrysalis.agent.loop",
    "chrysalis.llm.providers",
    "chrysalis.llm.openai_lean",
    "chrysalis.llm.text_protocol",
    "pydantic_ai.models.openai",
    "pydantic_ai.providers.openai",
    "rich.prompt",
    "genai_prices.data",
    "anyio._backends._asyncio",
    "encodings.idna",
    "queue",
)
"""What a run imports: the CLI, the agent, pydantic-ai and the OpenAI-wire model (the usual remote case)."""
OPTIONAL_PRELOAD = ("llama_cpp", "chrysalis.llm.local.llama_backend")
"""The embedded model's runtime (0.25 s to import), when it is installed; its weights load per run."""
DEFAULT_IDLE_SECONDS = 30 * 60.0
_REQUEST_SECONDS = 10.0
"""A client that connects and sends nothing for this long is dropped, so it cannot stall the daemon."""


class _Daemon:
    def __init__(self, home: Path, idle: float) -> None:
        self.home = home
        self.idle = idle
        self.fingerprint = wire.code_fingerprint()
        self.started_at = time.time()
        self.served = 0
        self.log = wire.log_path(home)
        self.inherited: list[int] = []
        """File descriptors a forked child must close (the listener, the lock) so it holds nothing of ours."""

    def note(self, text: str) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as out:
            out.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {text}\n")

    def serve(self, listener: socket.socket) -> None:
        """Accept until idle, stopped or stale; each ``run`` request is forked off."""
        listener.settimeout(self.idle)
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                self.note(f"idle for {self.idle:g}s: exiting")
                return
            with conn:
                keep_going = self._handle(conn)
            while _DAEMON_LOG:
                self.note(_DAEMON_LOG.pop(0))
            if not keep_going:
                return

    def _handle(self, conn: socket.socket) -> bool:
        """Answer one client; False when the daemon should exit."""
        conn.settimeout(_REQUEST_SECONDS)
        fds: list[int] = []
        try:
            if wire.peer_uid(conn) != os.getuid():
                self.note("refused a client of another user")
                return True
            _, fds, _, _ = socket.recv_fds(conn, 1, 3)
            request = wire.read_message(conn)
            return self._answer(conn, request, fds)
        except (OSError, wire.WireError) as exc:
            self.note(f"dropped a client: {exc}")
            return True
        finally:
            for fd in fds:
                os.close(fd)

    def _answer(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> bool:
        op = request.get("op")
        if op == "ping":
            wire.send_message(conn, self.status())
            return True
        if op == "stop":
            wire.send_message(conn, {"stopping": os.getpid()})
            self.note("stopped by a client")
            return False
        if op != "run" or len(fds) != 3:
            wire.send_message(conn, {"refused": f"unknown request {op!r}"})
            return True
        if request.get("fingerprint") != self.fingerprint:
            stale = wire.code_fingerprint() != self.fingerprint
            reason = "its code changed on disk since it started" if stale else "another installation of chrysalis"
            wire.send_message(conn, {"refused": reason})
            if stale:
                self.note("code changed on disk: exiting")
            return not stale
        if os.fork() == 0:
            for fd in self.inherited:
                os.close(fd)
            _run_child(conn, request, fds)  # never returns
        self.served += 1
        return True

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "started_at": self.started_at,
            "served": self.served,
            "idle_seconds": self.idle,
            "fingerprint": self.fingerprint,
            "python": sys.executable,
        }


def _run_child(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become the client's process, run its command line, report the exit code."""
    code = 1
    try:
        # The child, not the daemon, says it started: its ``exit`` can then never reach the client first
        # (a client that read ``exit`` before ``started`` would run the command a second time itself).
        wire.send_message(conn, {"started": os.getpid()})
        _become_client(request, fds)
        threading.Thread(target=_forward_signals, args=(conn,), daemon=True).start()
        code = _run_command_line(request["argv"])
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            wire.send_message(conn, {"exit": code})
        os._exit(code)


def _become_client(request: dict[str, Any], fds: list[int]) -> None:
    for handled in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(handled, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    streams = request.get("streams") or {}
    # The old stream objects write to fds 0-2 too (now the client's); new ones get the client's encoding and buffering.
    sys.stdin = _text_stream(0, "r", streams.get("stdin"))
    sys.stdout = _text_stream(1, "w", streams.get("stdout"))
    sys.stderr = _text_stream(2, "w", streams.get("stderr"), errors="backslashreplace")
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(int(request["umask"]))
    sys.argv = ["chrysalis", *request["argv"]]
    sys.path[:] = [str(entry) for entry in request["sys_path"]]
    from chrysalis.cli.daemon import client as daemon_client

    daemon_client.IN_DAEMON_CHILD = True


def _text_stream(fd: int, mode: str, spec: Any, errors: str | None = None) -> io.TextIOWrapper:
    """A text stream on ``fd`` like the one the client's interpreter had (its encoding, a terminal's line buffering)."""
    spec = spec if isinstance(spec, dict) else {}
    raw = io.FileIO(fd, mode, closefd=False)
    buffered: io.BufferedReader | io.BufferedWriter = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    interactive = os.isatty(fd)
    return io.TextIOWrapper(
        buffered,
        encoding=str(spec.get("encoding") or "utf-8"),
        errors=str(spec.get("errors") or errors or "strict"),
        line_buffering=interactive or fd == 2,
    )


def _forward_signals(conn: socket.socket) -> None:
    """Raise in the main thread what the client forwards (as the terminal would); a vanished client is a hang-up.

    ``pthread_kill`` and not ``raise_signal``: the main thread may be asleep in the event loop's
    ``epoll_wait``, and only a signal sent to that thread wakes it to run the handler.
    """
    conn.settimeout(None)
    main = threading.main_thread().ident
    assert main is not None
    while True:
        try:
            message = wire.read_message(conn)
        except (OSError, wire.WireError):
            signal.pthread_kill(main, signal.SIGHUP)
            return
        number = message.get("signal")
        if isinstance(number, int) and number in signal.valid_signals():
            signal.pthread_kill(main, number)


def _run_command_line(argv: list[str]) -> int:
    from chrysalis.cli.app import main as cli_main

    try:
        cli_main(argv)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return 0


def _reap(_signum: int, _frame: FrameType | None) -> None:
    """Collect finished children; one killed by a signal is logged (its client only sees the socket close)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if os.WIFSIGNALED(status):
            _DAEMON_LOG.append(f"run {pid} was killed by signal {os.WTERMSIG(status)}")


_DAEMON_LOG: list[str] = []
"""Lines the SIGCHLD handler leaves for the main loop (a handler should not do file I/O)."""


def _listen(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.parent.stat().st_uid != os.getuid():  # /tmp/chrysalis-UID made by someone else: not ours to use
        raise SystemExit(f"{path.parent} belongs to another user; remove it or set CHRYSALIS_HOME to a shorter path.")
    path.parent.chmod(0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # left by a daemon that died: we hold the lock, so nobody else owns it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    path.chmod(0o600)
    listener.listen(16)
    return listener


def main(argv: list[str] | None = None) -> int:
    """Run the daemon for ``--home`` until it is idle, stopped or stale; 0 also when one already runs."""
    parser = argparse.ArgumentParser(prog="python -m chrysalis.cli.daemon.server")
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE_SECONDS)
    args = parser.parse_args(argv)
    home: Path = args.home
    wire.daemon_dir(home).mkdir(parents=True, exist_ok=True, mode=0o700)
    wire.daemon_dir(home).chmod(0o700)
    with wire.lock_path(home).open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # another daemon serves this home
        return _serve_locked(home, args.idle, lock.fileno())


def _serve_locked(home: Path, idle: float, lock_fd: int) -> int:
    for module in PRELOAD:
        importlib.import_module(module)
    for module in OPTIONAL_PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    daemon = _Daemon(home, idle)
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    path = wire.socket_path(home)
    listener = _listen(path)
    daemon.inherited = [listener.fileno(), lock_fd]
    daemon.note(f"serving on {path} (python {sys.executable})")
    try:
        daemon.serve(listener)
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        for line in _DAEMON_LOG:
            daemon.note(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
