"""``chrysalis serve --mcp`` driven by the MCP SDK's own client (``stdio_client`` + ``ClientSession``) in a subprocess.

The tools listed follow the level; a refused call answers ``isError`` and the file stays as it was;
``run_task`` runs the agent against a scripted model; unknown methods get JSON-RPC errors and the
server goes on; stdout carries nothing but JSON-RPC messages.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import chrysalis
from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.server.mcp_server import McpBridge
from chrysalis.stores import Stores

SRC = str(Path(chrysalis.__file__).resolve().parents[1])
READ_TOOLS = {"read_file", "list_dir", "find", "grep", "git_status", "git_diff", "git_log", "system_stats"}
GUARD = 120.0
"""Seconds before a test counts the server as hung (a guard, not a deadline)."""


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


@asynccontextmanager
async def served(workspace: Path, *flags: str) -> AsyncIterator[ClientSession]:
    args = ["-m", "chrysalis", "serve", "--mcp", "--workspace", str(workspace), *flags]
    params = StdioServerParameters(command=sys.executable, args=args, env=env())
    async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=GUARD) as session:
        await session.initialize()
        yield session


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_level_0_lists_only_read_tools_and_refuses_a_write(workspace: Path) -> None:
    async def scenario() -> None:
        async with served(workspace, "--level", "0") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert names == READ_TOOLS | {"run_task"}
            read = await session.call_tool("read_file", {"path": "calc.py"})
            assert not read.is_error and "return a + b" in text(read)
            refused = await session.call_tool("write_file", {"path": "calc.py", "content": "gone"})
            assert refused.is_error and "--level 2" in text(refused)
            unknown = await session.call_tool("no_such_tool", {})
            assert unknown.is_error and "Unknown tool" in text(unknown)

    before = (workspace / "calc.py").read_text()
    asyncio.run(asyncio.wait_for(scenario(), GUARD))
    assert (workspace / "calc.py").read_text() == before


def test_level_2_lists_edit_tools_and_a_write_needs_yes(workspace: Path) -> None:
    edit = {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}

    async def without_yes() -> None:
        async with served(workspace, "--level", "2") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert {"edit_file", "write_file", "apply_patch"} <= names
            asked = await session.call_tool("edit_file", edit)
            assert asked.is_error and "--yes" in text(asked)

    async def with_yes() -> None:
        async with served(workspace, "--level", "2", "--yes") as session:
            done = await session.call_tool("edit_file", edit)
            assert not done.is_error, text(done)

    asyncio.run(asyncio.wait_for(without_yes(), GUARD))
    assert "a + b" in (workspace / "calc.py").read_text()
    asyncio.run(asyncio.wait_for(with_yes(), GUARD))
    assert "a - b" in (workspace / "calc.py").read_text()


def test_run_task_runs_the_agent_against_a_scripted_model(workspace: Path) -> None:
    script: list[ScriptedReply | str] = [
        ScriptedReply.tool_call("read_file", {"path": "calc.py"}),
        "subtract adds: it returns a + b.",
    ]

    async def scenario(base_url: str) -> None:
        async with served(workspace, "--level", "0", "--model", "openai:scripted", "--base-url", base_url) as session:
            assert "run_task" in {tool.name for tool in (await session.list_tools()).tools}
            answer = await session.call_tool("run_task", {"task": "What does subtract do?"})
            assert not answer.is_error, text(answer)
            assert "returns a + b" in text(answer)
            empty = await session.call_tool("run_task", {"task": " "})
            assert empty.is_error and "non-empty" in text(empty)

    with ScriptedOpenAIServer(script) as model:
        asyncio.run(asyncio.wait_for(scenario(model.base_url), GUARD))
        assert len(model.requests) == 2


def test_unknown_methods_get_errors_and_stdout_holds_only_json_rpc(workspace: Path) -> None:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    read = {"name": "read_file", "arguments": {"path": "calc.py"}}
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": read},
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "chrysalis", "serve", "--mcp", "--level", "0", "--workspace", str(workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert process.stdin is not None and process.stdout is not None
    replies: dict[int, dict[str, Any]] = {}
    lines: list[str] = []
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            while "id" in message and message["id"] not in replies:
                line = process.stdout.readline()  # the guard: communicate's timeout below kills a hung server
                assert line, "the server closed stdout"
                lines.append(line)
                reply = json.loads(line)
                if "id" in reply:
                    replies[reply["id"]] = reply
        out, _ = process.communicate(timeout=GUARD)  # EOF on stdin ends the server cleanly
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    lines += out.splitlines(keepends=True)
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in lines if line.strip())
    assert replies[2]["error"]["code"] == -32601
    assert "return a + b" in replies[3]["result"]["content"][0]["text"]


def test_the_mode_narrows_the_list_and_a_refused_call_never_runs(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "level": 3, "mode": "ask", "yes": True})
    stores = Stores.open(settings.home)
    try:
        bridge = McpBridge(settings, stores)
        names = {tool.name for tool in bridge.tools()}
        assert "read_file" in names and "run_task" in names
        assert not names & {"write_file", "edit_file", "apply_patch", "shell", "git_commit"}
        said, is_error = asyncio.run(bridge.call("write_file", {"path": "new.txt", "content": "x"}))
    finally:
        stores.close()
    assert is_error and "not allowed in 'ask' mode" in said
    assert not (workspace / "new.txt").exists()
