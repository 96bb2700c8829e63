"""The ACP agent's conversions, without a connection: events → updates, history → replay, prompts and MCP servers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    EmbeddedResourceContentBlock,
    EnvVariable,
    FileEditToolCallContent,
    HttpHeader,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    ResourceContentBlock,
    SseMcpServer,
    TextContentBlock,
    TextResourceContents,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from chrysalis.config import load_settings
from chrysalis.errors import UsageError
from chrysalis.events import (
    ApprovalRequest,
    ModelCall,
    RedFlag,
    RunResult,
    Start,
    TextDelta,
    ToolCall,
    ToolResultEvent,
)
from chrysalis.server.acp import agent as acp_agent
from chrysalis.server.acp.history import history_updates
from chrysalis.server.acp.inputs import mcp_servers_config, prompt_task
from chrysalis.server.acp.updates import EventMapper, Update, edited_paths, tool_kind
from chrysalis.tools.policy import Policy

RUN = "run1"


def start(run_id: str = RUN, parent: str | None = None) -> Start:
    return Start(
        run_id=run_id,
        task="t",
        model="m",
        mode="code",
        level=2,
        workspace="/w",
        task_type="edit",
        profile="coder",
        profile_reason="",
        parent_run_id=parent,
    )


def result(call_id: str, *, ok: bool = True, value: Any = "done", run_id: str = RUN) -> ToolResultEvent:
    return ToolResultEvent(
        run_id=run_id,
        call_id=call_id,
        tool="x",
        ok=ok,
        result=value if ok else None,
        error=None if ok else "it failed",
        decision="allow" if ok else "declined",
    )


def run_result(output: str, problem: str | None = None) -> RunResult:
    return RunResult(
        run_id=RUN,
        output=output,
        success=problem is None,
        steps=1,
        input_tokens=1,
        output_tokens=1,
        cost_usd=0.0,
        duration_ms=1.0,
        problem=problem,
    )


def diffs(update: Update) -> list[FileEditToolCallContent]:
    assert isinstance(update, ToolCallStart | ToolCallProgress)
    return [c for c in update.content or [] if isinstance(c, FileEditToolCallContent)]


def test_an_edit_is_pending_with_its_proposal_then_completed_with_the_whole_file_diff(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    mapper = EventMapper(tmp_path)
    args = {"path": "a.txt", "old_text": "two", "new_text": "2"}
    (announced,) = mapper.updates(ToolCall(run_id=RUN, step=1, call_id="c0", tool="edit_file", args=args))
    assert isinstance(announced, ToolCallStart)
    assert (announced.kind, announced.status, announced.title) == ("edit", "pending", "Edit a.txt")
    assert [(d.path, d.old_text, d.new_text) for d in diffs(announced)] == [
        (str(tmp_path / "a.txt"), "one\ntwo\n", "one\n2\n")
    ]
    asked = mapper.permission_call("edit_file", args, "it changes the workspace")
    assert asked.tool_call_id == announced.tool_call_id and asked.status == "pending"
    (running,) = mapper.updates(
        ApprovalRequest(run_id=RUN, call_id="c0", tool="edit_file", args=args, reason="r", approved=True)
    )
    assert isinstance(running, ToolCallProgress) and running.status == "in_progress"
    (tmp_path / "a.txt").write_text("one\n2\n")  # what the tool did
    (done,) = mapper.updates(result("c0"))
    assert isinstance(done, ToolCallProgress) and done.status == "completed"
    assert [(d.old_text, d.new_text) for d in diffs(done)] == [("one\ntwo\n", "one\n2\n")]


def test_a_refused_call_fails_with_the_reason_and_no_diff(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    mapper = EventMapper(tmp_path)
    mapper.updates(
        ToolCall(run_id=RUN, step=1, call_id="c0", tool="write_file", args={"path": "a.txt", "content": "x"})
    )
    declined = ApprovalRequest(run_id=RUN, call_id="c0", tool="write_file", args={}, reason="r", approved=False)
    assert mapper.updates(declined) == []  # a declined call is not running: its result says it failed
    (failed,) = mapper.updates(result("c0", ok=False))
    assert isinstance(failed, ToolCallProgress) and failed.status == "failed" and diffs(failed) == []
    assert failed.raw_output == {"error": "it failed", "decision": "declined"}


def test_calls_left_open_when_a_run_stops_are_marked_failed(tmp_path: Path) -> None:
    mapper = EventMapper(tmp_path)
    (started,) = mapper.updates(ToolCall(run_id=RUN, step=1, call_id="c0", tool="shell", args={"command": "sleep 9"}))
    (stopped,) = mapper.abandon()
    assert isinstance(started, ToolCallStart) and isinstance(stopped, ToolCallProgress)
    assert (stopped.tool_call_id, stopped.status) == (started.tool_call_id, "failed")
    assert mapper.abandon() == [] and mapper.updates(result("c0")) == []


def test_the_same_call_id_in_two_steps_gets_two_acp_ids(tmp_path: Path) -> None:
    mapper = EventMapper(tmp_path)
    first = mapper.updates(ToolCall(run_id=RUN, step=1, call_id="call_0", tool="list_dir", args={}))[0]
    mapper.updates(result("call_0"))
    second = mapper.updates(ToolCall(run_id=RUN, step=2, call_id="call_0", tool="grep", args={"pattern": "x"}))[0]
    assert isinstance(first, ToolCallStart) and isinstance(second, ToolCallStart)
    assert first.tool_call_id != second.tool_call_id and second.kind == "search"


def test_text_streams_and_an_unstreamed_or_unverified_answer_is_said(tmp_path: Path) -> None:
    mapper = EventMapper(tmp_path)
    (chunk,) = mapper.updates(TextDelta(run_id=RUN, text="All done."))
    assert isinstance(chunk, AgentMessageChunk) and isinstance(chunk.content, TextContentBlock)
    call = ModelCall(run_id=RUN, step=1, model="m", input_tokens=1, output_tokens=1, cost_usd=0, duration_ms=1)
    assert mapper.updates(call) == []
    assert mapper.updates(run_result("All done.")) == []  # streamed already (the model call between changes nothing)
    (said,) = mapper.updates(run_result("Fixed it.", problem="the tests failed"))
    assert isinstance(said, AgentMessageChunk) and isinstance(said.content, TextContentBlock)
    assert said.content.text == "Fixed it.\n\n⚠ Not verified: the tests failed"


def test_a_sub_agents_text_is_not_streamed_but_its_calls_are_shown(tmp_path: Path) -> None:
    mapper = EventMapper(tmp_path)
    mapper.updates(start("child", parent=RUN))
    assert mapper.updates(TextDelta(run_id="child", text="thinking aloud")) == []
    (call,) = mapper.updates(ToolCall(run_id="child", step=1, call_id="c", tool="read_file", args={"path": "a"}))
    assert isinstance(call, ToolCallStart) and call.kind == "read"
    (flag,) = mapper.updates(RedFlag(run_id=RUN, kind="repeated_call", detail="read_file"))
    assert isinstance(flag, AgentThoughtChunk)


def test_a_call_the_policy_allows_starts_in_progress_one_it_asks_about_pending(tmp_path: Path) -> None:
    mapper = EventMapper(tmp_path, Policy.from_settings(load_settings({"workspace": tmp_path, "level": "2"})))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {"path": "a"}),
        ("write_file", {"path": "a", "content": "x"}),
        ("shell", {"command": "ls"}),
        ("read_file", {"bad": 1}),
        ("mcp__git__log", {}),
    ]
    statuses = []
    for n, (tool, args) in enumerate(calls):
        (update,) = mapper.updates(ToolCall(run_id=RUN, step=1, call_id=f"c{n}", tool=tool, args=args))
        assert isinstance(update, ToolCallStart)
        statuses.append(update.status)
    # level 2: writes are asked about, commands run at once (in the read-only sandbox); bad args, unknown tool
    assert statuses == ["in_progress", "pending", "in_progress", "pending", "pending"]


def test_edit_paths_kinds_and_a_path_outside_the_workspace(tmp_path: Path) -> None:
    patch = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert edited_paths("apply_patch", {"patch": patch}) == ["x.py"]
    assert edited_paths("apply_patch", {"patch": "not a patch"}) == []
    assert edited_paths("shell", {"command": "ls"}) == []
    assert [tool_kind(t) for t in ("shell", "web_fetch", "mcp__git__log")] == ["execute", "fetch", "other"]
    mapper = EventMapper(tmp_path)
    (call,) = mapper.updates(
        ToolCall(run_id=RUN, step=1, call_id="c", tool="write_file", args={"path": "../outside.txt", "content": "x"})
    )
    assert isinstance(call, ToolCallStart) and diffs(call) == [] and call.locations is None


def test_a_stored_history_replays_as_messages_and_finished_tool_calls(tmp_path: Path) -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("fix a.txt")]),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "a.txt", "old_text": "1", "new_text": "2"}, "c0")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", {"ok": True, "result": "Edited a.txt"}, "c0")]),
        ModelResponse(parts=[ToolCallPart("shell", {"command": "rm -rf /"}, "c1")]),
        ModelRequest(parts=[ToolReturnPart("shell", {"ok": False, "error": "Refused by policy"}, "c1")]),
        ModelResponse(parts=[TextPart("Fixed.")]),
    ]
    updates = history_updates(messages, tmp_path)
    kinds = ["UserMessageChunk", "ToolCallStart", "ToolCallProgress", "ToolCallStart", "ToolCallProgress"]
    assert [type(u).__name__ for u in updates] == [*kinds, "AgentMessageChunk"]
    assert isinstance(updates[0], UserMessageChunk)
    edit, edited, _, refused, answer = updates[1:]
    assert [(d.path, d.old_text, d.new_text) for d in diffs(edit)] == [(str(tmp_path / "a.txt"), "1", "2")]
    assert isinstance(edited, ToolCallProgress) and edited.status == "completed"
    assert isinstance(refused, ToolCallProgress) and refused.status == "failed"
    assert isinstance(answer, AgentMessageChunk)


def test_a_prompt_becomes_one_task_with_links_and_embedded_context(tmp_path: Path) -> None:
    blocks: list[Any] = [
        TextContentBlock(type="text", text="Explain"),
        ResourceContentBlock(type="resource_link", name="a.py", uri=(tmp_path / "src" / "a.py").as_uri()),
        TextContentBlock(type="text", text="using"),
        EmbeddedResourceContentBlock(
            type="resource", resource=TextResourceContents(uri="file:///etc/notes", text="NOTE")
        ),
        ImageContentBlock(type="image", data="", mime_type="image/png"),
    ]
    task = prompt_task(blocks, tmp_path)
    assert task.startswith("Explain src/a.py using /etc/notes [image omitted")
    assert task.endswith('<context source="/etc/notes">\nNOTE\n</context>')
    with pytest.raises(UsageError, match="empty"):
        prompt_task([TextContentBlock(type="text", text="  ")], tmp_path)


def test_the_clients_mcp_servers_in_our_format() -> None:
    servers: list[Any] = [
        McpServerStdio(
            name="git", command="/usr/bin/mcp-git", args=["--repo", "."], env=[EnvVariable(name="TOKEN", value="t")]
        ),
        HttpMcpServer(
            type="http",
            name="docs",
            url="http://127.0.0.1:9000/mcp",
            headers=[HttpHeader(name="Authorization", value="Bearer k")],
        ),
        HttpMcpServer(type="http", name="plain", url="http://127.0.0.1:9001/mcp", headers=[]),
    ]
    assert mcp_servers_config(servers) == {
        "git": {"command": "/usr/bin/mcp-git", "args": ["--repo", "."], "env": {"TOKEN": "t"}},
        "docs": {"url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer k"}},
        "plain": {"url": "http://127.0.0.1:9001/mcp"},
    }
    with pytest.raises(UsageError, match=r"'old'.*sse"):
        mcp_servers_config([SseMcpServer(type="sse", name="old", url="http://127.0.0.1:1/sse", headers=[])])
    with pytest.raises(UsageError, match="Two MCP servers are named 'git'"):
        mcp_servers_config([servers[0], servers[0]])


def test_a_session_reads_the_settings_for_its_folder_with_the_serve_flags(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".chrysalis").mkdir(parents=True)
    (project / ".chrysalis" / "config.toml").write_text("max_steps = 7\n")
    served = load_settings({"level": "3", "model": "openai:x", "workspace": tmp_path})
    agent = acp_agent.ChrysalisAcpAgent(served)
    settings = agent._settings_for(str(project), "session/new")
    assert (settings.level, settings.model, settings.workspace, settings.max_steps) == (3, "openai:x", project, 7)
    with pytest.raises(UsageError, match="session/new: cwd 'relative' is not an absolute path"):
        agent._settings_for("relative", "session/new")


@pytest.mark.parametrize(
    ("model", "base_url", "problem"),
    [
        ("openai:gpt-4o-mini", None, "OPENAI_API_KEY"),
        ("anthropic:claude-x", None, "ANTHROPIC_API_KEY"),
        ("nonsense:x", None, "Unknown model provider 'nonsense'"),
        ("my-model", "http://127.0.0.1:9/v1", None),  # any OpenAI-compatible server: no key needed
        ("local:qwen2.5-coder-0.5b", None, None),  # weights are looked for at the first prompt
    ],
)
def test_session_new_checks_the_model_without_building_it(
    tmp_path: Path, model: str, base_url: str | None, problem: str | None
) -> None:
    settings = load_settings({"workspace": tmp_path, "model": model, "base_url": base_url})
    if problem is None:
        acp_agent._check_model(settings)
    else:
        with pytest.raises(UsageError, match=problem):
            acp_agent._check_model(settings)
