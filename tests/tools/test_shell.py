from __future__ import annotations

import os
import socket
from dataclasses import replace
from pathlib import Path

import pytest

from chrysalis.tools import sandbox
from chrysalis.tools.base import ToolContext
from chrysalis.tools.proc_limits import Limits
from chrysalis.tools.sandbox import Backend, SandboxOptions
from chrysalis.tools.shell import MAX_OUTPUT_CHARS, shell
from tests.helpers import SANDBOX_REFUSED, wait_until_no_process_with

BASH_STARTS_WITHIN = 3
"""A timeout the command must outlast; only bash starting and printing a word must fit in it."""


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


@pytest.mark.parametrize("escape", ["", "setsid "])
def test_background_jobs_are_stopped_after_the_command(ws: Path, ctx: ToolContext, escape: str) -> None:
    marker = "sleep 300.0125"  # a command line no other process has
    result = shell({"command": f"({escape}{marker}; touch late.txt) >/dev/null 2>&1 & echo started"}, ctx)
    assert result.result == "exit code 0\nstarted"
    wait_until_no_process_with(marker)  # a job left running would sleep on: this wait would hit its guard
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


@pytest.mark.parametrize("writable", [False, True], ids=["read-only", "writable"])
def test_with_no_sandbox_working_commands_are_refused_saying_how_to_fix_it(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, writable: bool
) -> None:
    monkeypatch.setattr(sandbox, "probe", lambda kind: Backend(kind, problem="no user namespaces (test)"))
    result = shell({"command": "touch made.txt"}, replace(ctx, writable=writable))
    assert not result.ok
    error = result.error or ""
    assert SANDBOX_REFUSED in error and "system-bwrap: no user namespaces (test)" in error
    assert "--unsafe-no-sandbox" in error and "kernel.unprivileged_userns_clone=1" in error
    assert not (ctx.workspace / "made.txt").exists()


def test_unsafe_no_sandbox_runs_unconfined_only_where_no_sandbox_works(
    ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    unsafe = replace(ctx, sandbox_options=SandboxOptions(unsafe_no_sandbox=True))
    assert shell({"command": "ls /home >/dev/null 2>&1 && echo seen || echo hidden"}, unsafe).result.endswith("hidden")
    monkeypatch.setattr(sandbox, "probe", lambda kind: Backend(kind, problem="no user namespaces (test)"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unsafe")
    result = shell({"command": "touch made.txt; echo key=$OPENAI_API_KEY; test -d /home && echo seen"}, unsafe)
    assert result.result == "exit code 0 (no sandbox)\nkey=\nseen"  # unconfined, and still without secrets
    assert (ws / "made.txt").exists()


def test_sandbox_can_read_but_not_write_the_workspace(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("hello\n")
    result = shell(
        {"command": "cat a.txt; echo x > b.txt; echo x > a.txt; echo tmp > /tmp/t && cat /tmp/t"},
        replace(ctx, writable=False),
    )
    assert result.ok
    text: str = result.result
    assert text.startswith("exit code 0 (read-only sandbox, no network)\nhello\n")
    assert "Read-only file system" in text
    assert text.endswith("tmp")
    assert not (ws / "b.txt").exists()
    assert (ws / "a.txt").read_text() == "hello\n"


def test_the_workspace_is_writable_but_not_git_or_chrysalis(ws: Path, ctx: ToolContext) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".chrysalis").mkdir()
    command = "echo new > new.txt; echo hook > .git/hooks/pre-commit; echo 'level = 3' > .chrysalis/config.toml"
    result = shell({"command": command}, ctx)
    assert result.result.count("Read-only file system") == 2
    assert (ws / "new.txt").read_text() == "new\n"
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert not (ws / ".chrysalis" / "config.toml").exists()


def test_sandbox_has_no_network_unless_the_config_allows_it(ctx: ToolContext) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        inside = shell({"command": probe}, ctx).result
        assert "connected" not in inside and "Connection refused" in inside  # its own, empty loopback
        allowed = replace(ctx, sandbox_options=SandboxOptions(network=True))
        assert shell({"command": probe}, allowed).result == "exit code 0\nconnected"
    # TEST-NET-1 address: never routed; inside the sandbox there is no route at all, so it fails at once
    far = "exec 3<>/dev/tcp/192.0.2.1/80"
    assert "Network is unreachable" in shell({"command": far}, replace(ctx, writable=False)).result


def test_sandbox_does_not_write_bytecode_and_times_out(ws: Path, ctx: ToolContext) -> None:
    (ws / "mod.py").write_text("X = 1\n")
    sandboxed = replace(ctx, writable=False)
    assert shell({"command": "python3 -c 'import mod; print(mod.X)'"}, sandboxed).result.endswith("\n1")
    assert not (ws / "__pycache__").exists()
    short = replace(sandboxed, shell_timeout=1)  # only for the command that cannot finish in time
    assert shell({"command": "sleep 300"}, short).result.startswith("Timed out after 1s")


def test_environment_is_an_allow_list(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHRYSALIS_TEST_MARK", "42")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("SOME_TOOL_SETTING", "x")
    result = shell({"command": "echo mark=$CHRYSALIS_TEST_MARK lc=$LC_TIME other=$SOME_TOOL_SETTING home=$HOME"}, ctx)
    assert result.result == "exit code 0\nmark= lc=C other= home=/tmp/home"
    assert os.environ["CHRYSALIS_TEST_MARK"] == "42"


def test_huge_output_is_read_with_a_cap_and_stops_the_command(ctx: ToolContext) -> None:
    small = replace(ctx, sandbox_options=SandboxOptions(limits=Limits(output_bytes=4 << 20)))
    result = shell({"command": "yes chrysalis | head -c 100000000; echo never-reached"}, small)
    text: str = result.result
    assert text.startswith("Stopped after 4 MiB of output; the command and every process it started were killed.\n")
    assert "[... truncated about" in text and "never-reached" not in text
    assert len(text) < MAX_OUTPUT_CHARS + 200


def test_output_under_the_cap_keeps_the_exact_tail(ctx: ToolContext) -> None:
    result = shell({"command": "seq 1 2000000"}, ctx)  # about 15 MB: read to the end, only head and tail kept
    text: str = result.result
    assert text.startswith("exit code 0\n1\n2\n3\n")
    assert text.endswith("1999999\n2000000")
    assert "[... truncated about" in text
