"""Run a shell command in the workspace, with a timeout, an output cap and an optional sandbox.

The command runs in its own process group so a timeout kills everything it started (a test
runner's workers, a server it forgot to stop), not just bash. At security level 1 the command runs
inside bubblewrap: the whole file system read-only (the workspace too), a private /tmp, no network
and its own PID namespace, so "sandboxed read" means exactly that.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from pydantic import Field

from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, truncate

__all__ = ["ShellArgs", "run_command", "sandbox_argv", "shell"]

MAX_OUTPUT_CHARS = 8_000
"""Command output beyond this is cut in the middle: the head and the tail (where errors are) stay."""
_DRAIN_SECONDS = 5.0


class ShellArgs(ToolArgs):
    """Arguments of shell."""

    command: str = Field(description="A bash command, run in the workspace folder.")
    timeout: float | None = Field(default=None, gt=0, description="Seconds before the command is killed.")


def sandbox_argv(workspace: Path, command: str) -> list[str]:
    """The bubblewrap command line: everything read-only, private /tmp, no network, own PIDs.

    The workspace is bound again after ``--tmpfs /tmp`` because it may live under /tmp (as in
    tests), where the fresh tmpfs would otherwise hide it.

    Raises:
        ToolError: bubblewrap is not installed.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ToolError(
            "The sandboxed shell (security level 1) needs bubblewrap, which is not installed: "
            "install bubblewrap (apt-get install bubblewrap) or use --level 3 to run commands unsandboxed."
        )
    ws = str(workspace)
    return [
        bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--ro-bind", ws, ws, "--unshare-net", "--unshare-pid", "--die-with-parent", "--chdir", ws,
        "bash", "-c", command,
    ]  # fmt: skip


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # already gone: nothing left to stop
        pass


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """Run ``argv`` in a new process group; the exit code is None when it timed out and was killed."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        try:
            out, _ = proc.communicate(timeout=_DRAIN_SECONDS)
        except subprocess.TimeoutExpired:  # a process left the group and holds the pipe: give up reading
            proc.kill()
            out = b""
        code = None
    _kill_group(proc.pid)  # background jobs it left running
    proc.wait()
    return code, out.decode("utf-8", errors="replace")


def run_command(command: str, ctx: ToolContext, timeout: float | None = None) -> tuple[int | None, str]:
    """Run ``command`` in the workspace (sandboxed when ``ctx.sandbox``); returns (exit code, report).

    The report starts with ``exit code N`` (or says it timed out), then the capped output; the
    agent's guards read that first line to know whether the last check passed.
    """
    if not command.strip():
        raise ToolError("The command is empty.")
    workspace = ctx.workspace.resolve()
    limit = min(timeout or ctx.shell_timeout, ctx.shell_timeout)
    env = dict(os.environ)
    if ctx.sandbox:
        argv = sandbox_argv(workspace, command)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        argv = ["bash", "-c", command]
    try:
        code, output = _run(argv, workspace, env, limit)
    except FileNotFoundError as exc:
        raise ToolError(f"Cannot start the command: {exc.strerror}: {exc.filename}") from None
    body = truncate(output.rstrip("\n"), MAX_OUTPUT_CHARS) if output.strip() else "(no output)"
    if code is None:
        head = f"Timed out after {limit:g}s; the command and every process it started were killed."
    else:
        head = f"exit code {code}" + (" (read-only sandbox, no network)" if ctx.sandbox else "")
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
