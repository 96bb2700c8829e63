"""Run a shell command in the workspace, confined, with a timeout and a cap on its output.

Every command runs in the sandbox (``chrysalis.tools.sandbox``): at security level 1 (and for the
final check) the workspace is read-only, at level 3 it is writable; either way the command sees a
minimal system, a private /tmp, its own PID namespace, no network and none of the user's secrets.
It runs in its own process group (and, where one can be made, its own ``pids`` cgroup), so a
timeout kills everything it started, not just bash. Its output is read as it comes and only the
head and tail are kept, so a command that prints a gigabyte cannot fill Chrysalis's memory; past
``Limits.output_bytes`` it is stopped.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Literal

from pydantic import Field

from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, truncate
from chrysalis.tools.running import RunningCommands, kill_group
from chrysalis.tools.sandbox import SandboxOptions, SandboxSpec, SandboxUnavailable, confine

__all__ = ["MAX_OUTPUT_CHARS", "ShellArgs", "Stop", "run_command", "run_confined", "shell"]

MAX_OUTPUT_CHARS = 8_000
"""Command output beyond this is cut in the middle: the head and the tail (where errors are) stay."""
_KEEP_BYTES = 4 * MAX_OUTPUT_CHARS
"""Bytes kept from each end of the output while it is read (a character is at most 4 bytes of UTF-8)."""
_CHUNK = 1 << 16
_DRAIN_SECONDS = 5.0
Stop = Literal["timeout", "output", "cancelled"]


class ShellArgs(ToolArgs):
    """Arguments of shell."""

    command: str = Field(description="A bash command, run in the workspace folder.")
    timeout: float | None = Field(default=None, gt=0, description="Seconds before the command is killed.")


class _Capture:
    """The head and tail of a stream, and how long it was: the middle is dropped as it is read."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = _KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > 2 * _KEEP_BYTES:
            del self.tail[:-_KEEP_BYTES]

    def text(self) -> str:
        """The output, cut in the middle to ``MAX_OUTPUT_CHARS`` when long."""
        if len(self.head) + len(self.tail) == self.total:
            return truncate(bytes(self.head + self.tail).decode("utf-8", errors="replace"), MAX_OUTPUT_CHARS)
        head = self.head.decode("utf-8", errors="replace")[: MAX_OUTPUT_CHARS * 2 // 3]
        tail = self.tail[-_KEEP_BYTES:].decode("utf-8", errors="replace")[-(MAX_OUTPUT_CHARS // 3) :]
        cut = self.total - len(head.encode()) - len(tail.encode())
        return f"{head}\n[... truncated about {cut} bytes ...]\n{tail}"


def _read(fd: int, capture: _Capture, deadline: float, cap: int | None) -> Stop | None:
    """Read ``fd`` to its end (``None``), or until the deadline or past ``cap`` bytes."""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            if not selector.select(remaining):
                continue
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return None
            capture.feed(chunk)
            if cap is not None and capture.total > cap:
                return "output"


def _run(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float, cap: int, running: RunningCommands
) -> tuple[int | None, str, Stop | None]:
    """Run ``argv`` in a new process group: (exit code, output, why it was stopped); no code when stopped.

    ``running`` (the run's commands) may kill the group from another thread: the output then ends,
    and the result says the command was stopped.
    """
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    running.started(proc.pid)
    try:
        code, output, stop = _collect(proc, timeout, cap)
    finally:
        running.ended(proc.pid)
    if running.stopped and stop is None:
        stop = "cancelled"
    return (None if stop else code), output, stop


def _collect(proc: subprocess.Popen[bytes], timeout: float, cap: int) -> tuple[int | None, str, Stop | None]:
    """Read a started command's output until it ends, times out or says too much; kill its group; reap it."""
    assert proc.stdout is not None
    capture = _Capture()
    with proc.stdout:
        stop = _read(proc.stdout.fileno(), capture, time.monotonic() + timeout, cap)
        if stop is not None:
            kill_group(proc.pid)
            drained = _read(proc.stdout.fileno(), capture, time.monotonic() + _DRAIN_SECONDS, None)
            if drained is not None:  # a process left the group and holds the pipe
                capture.feed(b"\n(a process the command started still held its output open)")
    if stop is None:
        try:
            proc.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:  # closed its output but went on running
            stop = "timeout"
    kill_group(proc.pid)  # background jobs it left running
    proc.wait()
    return proc.returncode, capture.text(), stop


def run_confined(
    command: str, workspace: Path, options: SandboxOptions, timeout: float, *, writable: bool = True
) -> tuple[int | None, str, Stop | None]:
    """Run ``command`` confined to ``workspace``: (exit code, output, why it was stopped); no code when stopped.

    For callers that run commands of their own outside a tool call (repair validating a candidate
    in a copy of the workspace).

    Raises:
        SandboxUnavailable: no sandbox works here and ``options`` do not allow running unconfined.
    """
    confined = confine(SandboxSpec(workspace, writable=writable, options=options), command)
    try:
        return _run(confined.argv, workspace, confined.env, timeout, options.limits.output_bytes, RunningCommands())
    finally:
        confined.close()


def run_command(
    command: str, ctx: ToolContext, timeout: float | None = None, *, readable: tuple[Path, ...] = ()
) -> tuple[int | None, str]:
    """Run ``command`` confined in the workspace (read-only unless ``ctx.writable``); returns (exit code, report).

    ``readable``: folders outside the workspace the command may also read (``SandboxSpec.readable``).

    The report starts with ``exit code N`` (or says it timed out or was stopped), then the capped
    output; the agent's guards read that first line to know whether the last check passed.

    Raises:
        ToolError: the command is empty, or no sandbox works here (the message says how to fix it).
    """
    if not command.strip():
        raise ToolError("The command is empty.")
    workspace = ctx.workspace.resolve()
    limit = min(timeout or ctx.shell_timeout, ctx.shell_timeout)
    options = ctx.sandbox_options
    try:
        confined = confine(SandboxSpec(workspace, ctx.writable, options, readable), command)
    except SandboxUnavailable as exc:
        raise ToolError(str(exc)) from None
    try:
        code, output, stop = _run(
            confined.argv, workspace, confined.env, limit, options.limits.output_bytes, ctx.commands
        )
    except FileNotFoundError as exc:
        raise ToolError(f"Cannot start the command: {exc.strerror}: {exc.filename}") from None
    finally:
        confined.close()
    body = output.rstrip("\n") if output.strip() else "(no output)"
    if stop == "timeout":
        head = f"Timed out after {limit:g}s; the command and every process it started were killed."
    elif stop == "cancelled":
        head = "Stopped: the run ended (cancelled or out of time); the command and all it started were killed."
    elif stop == "output":
        mib = options.limits.output_bytes / (1 << 20)
        head = f"Stopped after {mib:g} MiB of output; the command and every process it started were killed."
    else:
        head = f"exit code {code}" + (f" ({confined.note})" if confined.note else "")
    return code, f"{head}\n{body}"


def _shell(args: ShellArgs, ctx: ToolContext) -> ToolResult:
    return ToolResult.success(run_command(args.command, ctx, args.timeout)[1])


shell = ToolSpec(
    name="shell",
    description="Run a bash command in the workspace; returns its exit code and output (background jobs are stopped).",
    args=ShellArgs,
    effect="shell",
    level=1,
    run=_shell,
)
