from __future__ import annotations

import os
import shutil
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.shell import MAX_OUTPUT_CHARS, shell

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

BASH_STARTS_WITHIN = 3
"""A timeout the command must outlast; only bash starting and printing a word must fit in it."""
HANG_GUARD = 60.0


def wait_until_gone(pid: int) -> None:
    """Wait until process ``pid`` has exited (gone, or a zombie nobody reaps); fail if it still runs after a minute."""
    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang only: a killed process is gone in milliseconds
    stat = Path(f"/proc/{pid}/stat")
    while time.monotonic() < deadline:
        try:
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} is still running")


def test_runs_in_the_workspace_with_exit_code_and_combined_output(ws: Path, ctx: ToolContext) -> None:
    result = shell({"command": "pwd; echo out; echo err >&2; exit 3"}, ctx)
    assert result.ok
    assert result.result == f"exit code 3\n{ws}\nout\nerr"


def test_no_output(ctx: ToolContext) -> None:
    assert shell({"command": "true"}, ctx).result == "exit code 0\n(no output)"


def test_is_plain_bash_not_a_login_shell(ctx: ToolContext) -> None:
    assert shell({"command": "shopt -q login_shell && echo login || echo plain"}, ctx).result == "exit code 0\nplain"


def test_long_output_is_capped_keeping_the_tail(ctx: ToolContext) -> None:
    result = shell({"command": "seq 1 20000"}, ctx)
    text: str = result.result
    assert len(text) < MAX_OUTPUT_CHARS + 200
    assert "[... truncated" in text
    assert text.endswith("19999\n20000")


def test_timeout_kills_the_whole_process_group(ws: Path, ctx: ToolContext) -> None:
    # The background job keeps the output pipe open: the output is read to the end (and "started" reported)
    # only if every process of the group was killed; a survivor would leave the report empty.
    command = "echo started; (sleep 300; touch late.txt) & sleep 300"
    result = shell({"command": command, "timeout": BASH_STARTS_WITHIN}, ctx)
    assert result.ok
    assert result.result == (
        f"Timed out after {BASH_STARTS_WITHIN:g}s; the command and every process it started were killed.\nstarted"
    )
    assert not (ws / "late.txt").exists()


def test_timeout_is_capped_by_the_context(ctx: ToolContext) -> None:
    short = replace(ctx, shell_timeout=0.5)
    assert shell({"command": "sleep 300", "timeout": 100}, short).result.startswith("Timed out after 0.5s")


def test_background_jobs_are_stopped_after_the_command(ws: Path, ctx: ToolContext) -> None:
    result = shell({"command": "(sleep 300; touch late.txt) >/dev/null 2>&1 & echo $!"}, ctx)
    first_line, pid = result.result.split("\n")
    assert first_line == "exit code 0"
    wait_until_gone(int(pid))  # a job left running would sleep on: this wait would hit its guard
    assert not (ws / "late.txt").exists()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"command": "  "}, "The command is empty"),
        ({}, "Bad arguments for shell: command: Field required"),
        ({"command": "ls", "timeout": "soon"}, "Bad arguments for shell: timeout"),
        ({"command": "ls", "timeout": -1}, "Bad arguments for shell: timeout"),
    ],
)
def test_bad_inputs(ctx: ToolContext, args: dict[str, object], error: str) -> None:
    result = shell(args, ctx)
    assert not result.ok
    assert error in (result.error or "")


def test_sandbox_without_bwrap_says_how_to_fix(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = shell({"command": "ls"}, replace(ctx, sandbox=True))
    assert not result.ok
    assert "install bubblewrap (apt-get install bubblewrap) or use --level 3" in (result.error or "")


@needs_bwrap
def test_sandbox_can_read_but_not_write_the_workspace(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("hello\n")
    result = shell(
        {"command": "cat a.txt; echo x > b.txt; echo x > a.txt; echo tmp > /tmp/t && cat /tmp/t"},
        replace(ctx, sandbox=True),
    )
    assert result.ok
    text: str = result.result
    assert text.startswith("exit code 0 (read-only sandbox, no network)\nhello\n")
    assert "Read-only file system" in text
    assert text.endswith("tmp")
    assert not (ws / "b.txt").exists()
    assert (ws / "a.txt").read_text() == "hello\n"


@needs_bwrap
def test_sandbox_has_no_network(ctx: ToolContext) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')"
        probe = f'python3 -c "{connect}"'
        assert shell({"command": probe}, ctx).result == "exit code 0\nconnected"  # the host can reach it
        inside = shell({"command": f"{probe} 2>&1 | tail -1"}, replace(ctx, sandbox=True)).result
    assert "ConnectionRefusedError" in inside  # the sandbox has its own, empty loopback
    # TEST-NET-1 address: never routed; inside the sandbox there is no route at all, so it fails at once
    far = "python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), timeout=2)\" 2>&1 | tail -1"
    assert "Network is unreachable" in shell({"command": far}, replace(ctx, sandbox=True)).result


@needs_bwrap
def test_sandbox_does_not_write_bytecode_and_times_out(ws: Path, ctx: ToolContext) -> None:
    (ws / "mod.py").write_text("X = 1\n")
    sandboxed = replace(ctx, sandbox=True)
    assert shell({"command": "python3 -c 'import mod; print(mod.X)'"}, sandboxed).result.endswith("\n1")
    assert not (ws / "__pycache__").exists()
    short = replace(sandboxed, shell_timeout=1)  # only for the command that cannot finish in time
    assert shell({"command": "sleep 300"}, short).result.startswith("Timed out after 1s")


def test_environment_is_inherited(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHRYSALIS_TEST_MARK", "42")
    assert shell({"command": "echo $CHRYSALIS_TEST_MARK"}, ctx).result == "exit code 0\n42"
    assert os.environ["CHRYSALIS_TEST_MARK"] == "42"
