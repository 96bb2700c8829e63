"""``chrysalis serve --acp`` driven by the ACP SDK's own client, in a subprocess, against a scripted model.

Every test runs the real command; the model is a ``ScriptedOpenAIServer`` on 127.0.0.1. Waits are on
events (a request reaching the server, a response arriving), each under a generous guard timeout.
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
from typing import Any, cast

import pytest
from acp import PROTOCOL_VERSION, RequestError
from acp.client.connection import ClientSideConnection
from acp.helpers import text_block
from acp.interfaces import Client as AcpClient
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    FileEditToolCallContent,
    McpServerStdio,
    PermissionOption,
    RequestPermissionResponse,
    SseMcpServer,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)
from acp.stdio import spawn_agent_process

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import chrysalis

SRC = Path(__file__).resolve().parents[2] / "src"
GUARD = 120.0
"""Seconds before a wait counts as a hang (a failure), never a synchronisation."""


class Client:
    """An ACP client that records every update and answers each permission request with ``answer``."""

    def __init__(self, answer: str = "allow_once") -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.permissions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    def text(self) -> str:
        return "".join(
            u.content.text
            for u in self.updates
            if isinstance(u, AgentMessageChunk) and isinstance(u.content, TextContentBlock)
        )

    def of(self, kind: type[Any]) -> list[Any]:
        return [u for u in self.updates if isinstance(u, kind)]


@asynccontextmanager
async def serve(
    client: Client, home: Path, tmp: Path, **env: str
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    """``chrysalis serve --acp`` in a subprocess (this worktree's code), initialized; its stderr kept in a file."""
    full_env = {"PYTHONPATH": str(SRC), "CHRYSALIS_HOME": str(home), "CHRYSALIS_LEVEL": "2", **env}
    command = [sys.executable, "-m", "chrysalis", "serve", "--acp"]
    with (tmp / f"stderr-{os.getpid()}-{id(client)}.log").open("wb") as stderr:
        spawned = spawn_agent_process(
            cast(AcpClient, client), *command, env=full_env, cwd=tmp, transport_kwargs={"stderr": stderr.fileno()}
        )
        async with spawned as (conn, process):
            init = await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION), GUARD)
            assert init.protocol_version == 1
            assert init.agent_capabilities is not None and init.agent_capabilities.load_session
            yield conn, process


def model_env(server: ScriptedOpenAIServer) -> dict[str, str]:
    return {"CHRYSALIS_MODEL": "openai:scripted", "CHRYSALIS_BASE_URL": server.base_url}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("the colour is old\nsecond line\n")
    return root


async def ask(conn: ClientSideConnection, session_id: str, text: str) -> str:
    response = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), GUARD)
    return response.stop_reason


def test_a_prompt_reads_edits_with_approval_and_answers(project: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    script: list[ScriptedReply | str] = [
        ScriptedReply.tool_call("read_file", {"path": "notes.txt"}),
        ScriptedReply.tool_call("edit_file", {"path": "notes.txt", "old_text": "is old", "new_text": "is new"}),
        "I changed the colour to new.",
    ]
    client = Client("allow_once")

    async def scenario(server: ScriptedOpenAIServer) -> str:
        async with serve(client, chrysalis_home, tmp_path, **model_env(server)) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.modes is not None and session.modes.current_mode_id == "code"
            return await ask(conn, session.session_id, "Change the colour in notes.txt to new")

    with ScriptedOpenAIServer(script) as server:
        stop = asyncio.run(scenario(server))

    assert stop == "end_turn"
    assert (project / "notes.txt").read_text() == "the colour is new\nsecond line\n"
    starts = client.of(ToolCallStart)
    assert [(s.kind, s.status, s.title) for s in starts] == [
        ("read", "in_progress", "Read notes.txt"),  # allowed at once
        ("edit", "pending", "Edit notes.txt"),  # to be approved
    ]
    ((asked, options),) = client.permissions  # only the edit needed approval (level 2)
    assert asked.tool_call_id == starts[1].tool_call_id and asked.kind == "edit"
    assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once", "reject_always"}
    proposal = next(c for c in asked.content or [] if isinstance(c, FileEditToolCallContent))
    assert proposal.path == str(project / "notes.txt") and proposal.new_text.startswith("the colour is new")
    edit_updates = [u for u in client.of(ToolCallProgress) if u.tool_call_id == starts[1].tool_call_id]
    assert [u.status for u in edit_updates] == ["in_progress", "completed"]
    diff = next(c for c in edit_updates[-1].content or [] if isinstance(c, FileEditToolCallContent))
    assert (diff.old_text, diff.new_text) == ("the colour is old\nsecond line\n", "the colour is new\nsecond line\n")
    read_done = [u for u in client.of(ToolCallProgress) if u.tool_call_id == starts[0].tool_call_id]
    assert [u.status for u in read_done] == ["completed"]
    assert client.text() == "I changed the colour to new."  # streamed, and not said again at the end


def test_a_rejected_edit_never_runs_and_always_is_remembered(
    project: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    script: list[ScriptedReply | str] = [
        ScriptedReply.tool_call("edit_file", {"path": "notes.txt", "old_text": "is old", "new_text": "is new"}),
        ScriptedReply.tool_call("write_file", {"path": "notes.txt", "content": "overwritten\n"}),
        ScriptedReply.tool_call("edit_file", {"path": "notes.txt", "old_text": "second", "new_text": "2nd"}),
        "I was not allowed to change it.",
    ]
    client = Client("reject_always")

    async def scenario(server: ScriptedOpenAIServer) -> str:
        async with serve(client, chrysalis_home, tmp_path, **model_env(server)) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            return await ask(conn, session.session_id, "Change the colour in notes.txt to new")

    with ScriptedOpenAIServer(script) as server:
        stop = asyncio.run(scenario(server))

    assert (project / "notes.txt").read_text() == "the colour is old\nsecond line\n"
    asked = [call.title for call, _ in client.permissions]
    assert asked == ["Edit notes.txt", "Write notes.txt"]  # the second edit_file was rejected without asking
    finished = [u.status for u in client.of(ToolCallProgress) if u.status in ("completed", "failed")]
    assert finished[:2] == ["failed", "failed"]
    assert stop == "refusal"  # two refused calls end the run, as in chrysalis run (exit 3)
    assert "Refused" in client.text()


def test_cancel_stops_a_running_prompt(project: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    script: list[ScriptedReply | str] = [ScriptedReply(text="never sent", held=True), "Still here."]
    client = Client()

    async def scenario(server: ScriptedOpenAIServer) -> tuple[str, str]:
        async with serve(client, chrysalis_home, tmp_path, **model_env(server)) as (conn, process):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            running = asyncio.create_task(ask(conn, session.session_id, "Think about notes.txt"))
            reached = await asyncio.to_thread(server.wait_for_requests, 1, GUARD)
            assert reached, "the prompt never reached the model"
            await conn.cancel(session_id=session.session_id)
            first = await running
            await conn.set_session_mode(session_id=session.session_id, mode_id="ask")
            with pytest.raises(RequestError, match="not available"):
                await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
            second = await ask(conn, session.session_id, "Are you there?")
            assert process.returncode is None
            return first, second

    with ScriptedOpenAIServer(script) as server:
        first, second = asyncio.run(scenario(server))
    assert (first, second) == ("cancelled", "end_turn")
    assert "Still here." in client.text()


def test_load_replays_a_stored_session_in_a_new_process(project: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    first_client, second_client = Client(), Client()

    async def first(server: ScriptedOpenAIServer) -> str:
        async with serve(first_client, chrysalis_home, tmp_path, **model_env(server)) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert await ask(conn, session.session_id, "What colour is in notes.txt?") == "end_turn"
            return session.session_id

    async def second(server: ScriptedOpenAIServer, session_id: str) -> tuple[list[Any], str]:
        async with serve(second_client, chrysalis_home, tmp_path, **model_env(server)) as (conn, _):
            await asyncio.wait_for(conn.load_session(cwd=str(project), session_id=session_id, mcp_servers=[]), GUARD)
            replayed = list(second_client.updates)  # the replay comes before load's answer
            return replayed, await ask(conn, session_id, "And the second line?")

    script: list[ScriptedReply | str] = [
        ScriptedReply.tool_call("read_file", {"path": "notes.txt"}),
        "The colour is old.",
    ]
    with ScriptedOpenAIServer(script) as server:
        session_id = asyncio.run(first(server))
    with ScriptedOpenAIServer(["It says second line."]) as server:
        replayed, stop = asyncio.run(second(server, session_id))
        history = server.requests[0]["messages"]

    assert stop == "end_turn"
    kinds = [type(u).__name__ for u in replayed]
    assert kinds[0] == "UserMessageChunk" and "ToolCallStart" in kinds and "AgentMessageChunk" in kinds
    user = replayed[0].content
    assert isinstance(user, TextContentBlock) and user.text == "What colour is in notes.txt?"
    assert any(isinstance(u, ToolCallStart) and u.title == "Read notes.txt" for u in replayed)
    assert any(isinstance(u, ToolCallProgress) and u.status == "completed" for u in replayed)
    assert any(isinstance(u, AgentMessageChunk) and "The colour is old." in u.content.text for u in replayed)
    said = " ".join(str(m.get("content")) for m in history)
    assert "What colour is in notes.txt?" in said and "The colour is old." in said  # the model saw the history
    assert "It says second line." in second_client.text()


def test_a_bad_model_is_a_json_rpc_error_not_a_crash(project: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    async def scenario() -> tuple[RequestError, RequestError, RequestError]:
        async with serve(Client(), chrysalis_home, tmp_path, CHRYSALIS_MODEL="openai:gpt-4o-mini") as (conn, process):
            with pytest.raises(RequestError) as no_key:
                await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[]), GUARD)
            with pytest.raises(RequestError) as no_folder:
                await asyncio.wait_for(conn.new_session(cwd=str(project / "missing"), mcp_servers=[]), GUARD)
            sse = SseMcpServer(type="sse", name="legacy", url="http://127.0.0.1:9/sse", headers=[])
            with pytest.raises(RequestError) as no_sse:
                await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[sse]), GUARD)
            assert process.returncode is None
            return no_key.value, no_folder.value, no_sse.value

    no_key, no_folder, no_sse = asyncio.run(scenario())
    assert "OPENAI_API_KEY" in str(no_key) and no_key.code == -32602
    assert "is not an absolute path to a folder" in str(no_folder)
    assert "MCP server 'legacy' uses the sse transport" in str(no_sse)


def test_stdout_holds_only_protocol_messages_and_unknown_methods_are_errors(
    project: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/frobnicate", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": "relative", "mcpServers": []}},
        {"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": {"sessionId": "nope", "prompt": []}},
    ]
    env = {**os.environ, "PYTHONPATH": str(SRC), "CHRYSALIS_HOME": str(chrysalis_home)}
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    command = [sys.executable, "-m", "chrysalis", "serve", "--acp"]
    done = subprocess.run(command, input=lines, capture_output=True, text=True, env=env, timeout=GUARD, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # the client closed stdin: the agent ends cleanly
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}  # every line is JSON-RPC
    assert sorted(answers) == [1, 2, 3, 4] and all(m["jsonrpc"] == "2.0" for m in answers.values())
    assert answers[1]["result"]["agentCapabilities"]["loadSession"] is True
    assert answers[2]["error"]["code"] == -32601
    assert "cwd 'relative' is not an absolute path" in answers[3]["error"]["message"]
    assert "No session 'nope'" in answers[4]["error"]["message"]


def test_a_client_that_goes_away_mid_prompt_ends_the_agent_and_keeps_the_conversation(
    project: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer([ScriptedReply(text="never sent", held=True)]) as server:
        env = {**os.environ, "PYTHONPATH": str(SRC), "CHRYSALIS_HOME": str(chrysalis_home), **model_env(server)}
        command = [sys.executable, "-m", "chrysalis", "serve", "--acp"]
        with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp_path) as agent:
            assert agent.stdin is not None and agent.stdout is not None

            def call(message: dict[str, Any]) -> None:
                assert agent.stdin is not None
                agent.stdin.write((json.dumps(message) + "\n").encode())
                agent.stdin.flush()

            call(
                {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}}
            )
            session_id = json.loads(agent.stdout.readline())["result"]["sessionId"]
            prompt = [{"type": "text", "text": "Describe notes.txt"}]
            call(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "session/prompt",
                    "params": {"sessionId": session_id, "prompt": prompt},
                }
            )
            assert server.wait_for_requests(1, GUARD), "the prompt never reached the model"
            agent.stdin.close()  # the editor quit
            assert agent.wait(GUARD) == 0
    listed = chrysalis("sessions", "--json", env={"CHRYSALIS_HOME": str(chrysalis_home)}, cwd=project)
    (stored,) = json.loads(listed.stdout)
    assert (stored["id"], stored["task"], stored["workspace"]) == (session_id, "Describe notes.txt", str(project))


def test_the_editors_mcp_server_is_started_and_its_tool_runs_after_approval(
    project: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    demo = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_demo_server.py"
    script: list[ScriptedReply | str] = [ScriptedReply.tool_call("mcp__demo__shout", {"text": "hi"}), "It said HI."]
    client = Client("allow_once")

    async def scenario(server: ScriptedOpenAIServer) -> str:
        env = {**model_env(server), "CHRYSALIS_LEVEL": "3"}  # an MCP tool needs level 3 unless config lowers it
        async with serve(client, chrysalis_home, tmp_path, **env) as (conn, _):
            source = demo.read_text(encoding="utf-8")  # as -c: the server's sandbox does not show the tests' folder
            editor_server = McpServerStdio(name="demo", command=sys.executable, args=["-c", source], env=[])
            session = await conn.new_session(cwd=str(project), mcp_servers=[editor_server])
            return await ask(conn, session.session_id, "Shout hi")

    with ScriptedOpenAIServer(script) as server:
        stop = asyncio.run(scenario(server))

    assert stop == "end_turn"
    assert [call.title for call, _ in client.permissions] == ["mcp__demo__shout(text=hi)"]
    logged = (chrysalis_home / "logs" / "mcp-demo.log").read_text().splitlines()  # the demo server's calls, on stderr
    calls = [json.loads(line.removeprefix("CALL ")) for line in logged if line.startswith("CALL ")]
    assert calls == [{"tool": "shout", "args": {"text": "hi"}}]
    results = [u for u in client.of(ToolCallProgress) if u.status == "completed"]
    assert any("HI" in json.dumps(u.raw_output) for u in results)
