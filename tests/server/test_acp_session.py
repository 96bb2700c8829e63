"""One ACP session without a subprocess: its approvals and the order its updates go out in."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, cast

import pytest
from acp.interfaces import Client
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from chrysalis.config import load_settings
from chrysalis.errors import UsageError
from chrysalis.events import TextDelta, ToolCall
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.server.acp.modes import check_mode, mode_state, modes_under
from chrysalis.server.acp.session import AcpSession
from chrysalis.tools.policy import Policy


class FakeClient:
    def __init__(self, *answers: str | Exception | None) -> None:
        self.answers = list(answers)
        self.asked: list[ToolCallUpdate] = []
        self.updates: list[Any] = []

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append(tool_call)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)


def open_session(client: FakeClient, workspace: Path) -> AcpSession:
    session = AcpSession(cast(Client, client), load_settings({"workspace": workspace}))
    session.open_new()
    return session


def test_always_is_remembered_per_tool_and_a_cancelled_or_failed_request_denies(workspace: Path) -> None:
    client = FakeClient("allow_always", "reject_always", None, RuntimeError("client gone"))

    async def scenario() -> list[bool]:
        session = open_session(client, workspace)
        args = {"path": "calc.py", "content": "x"}
        session.on_event(ToolCall(run_id="r", step=1, call_id="c0", tool="write_file", args=args))
        answers = [
            await session.approve("write_file", args, "it writes"),
            await session.approve("write_file", {"path": "other.py", "content": "y"}, "it writes"),  # remembered
            await session.approve("shell", {"command": "ls"}, "it runs"),
            await session.approve("shell", {"command": "ls"}, "it runs"),  # remembered: not asked again
            await session.approve("edit_file", {"path": "a"}, "it edits"),  # cancelled outcome
            await session.approve("apply_patch", {"patch": ""}, "it patches"),  # the client failed
        ]
        session.close()
        return answers

    assert asyncio.run(scenario()) == [True, True, False, False, False, False]
    assert [call.title for call in client.asked][:2] == ["Write calc.py", "Run `ls`"]
    assert len(client.asked) == 4
    first = client.updates[0]
    assert isinstance(first, ToolCallStart) and first.tool_call_id == client.asked[0].tool_call_id  # announced first


def test_updates_emitted_from_another_thread_go_out_in_order(workspace: Path) -> None:
    client = FakeClient()

    async def scenario() -> None:
        session = open_session(client, workspace)
        session.on_event(TextDelta(run_id="r", text="one "))
        worker = threading.Thread(target=session.on_event, args=(TextDelta(run_id="r", text="two"),))
        worker.start()
        await asyncio.to_thread(worker.join)
        await asyncio.sleep(0)  # the loop runs the callback the thread scheduled
        await session.flush()
        session.close()

    asyncio.run(scenario())
    texts = [
        u.content.text
        for u in client.updates
        if isinstance(u, AgentMessageChunk) and isinstance(u.content, TextContentBlock)
    ]
    assert texts == ["one ", "two"]


def test_a_limit_stops_the_prompt_with_its_reason_and_settings_warnings_come_first(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text("level = 3\n")  # an untrusted folder may not raise it
    client = FakeClient()
    script = ScriptedModel(
        [tool("read_file", path="calc.py"), tool("list_dir", path="."), tool("find", pattern="*.py")]
    )

    async def scenario() -> str:
        settings = load_settings({"workspace": workspace, "max_steps": "2"})
        session = AcpSession(cast(Client, client), settings, model=script.model())
        session.open_new()
        stop = await session.prompt("look around")
        session.close()
        return stop

    assert asyncio.run(scenario()) == "max_turn_requests"
    first = client.updates[0]
    assert isinstance(first, AgentThoughtChunk) and isinstance(first.content, TextContentBlock)
    assert first.content.text.startswith("warning: ") and "not a trusted folder" in first.content.text
    said = [
        u.content.text
        for u in client.updates
        if isinstance(u, AgentMessageChunk) and isinstance(u.content, TextContentBlock)
    ]
    assert said[-1] == "\n\nStopped: Reached --max-steps 2 before the task was done."


def test_the_editor_may_narrow_the_mode_and_a_narrowed_session_cannot_write(workspace: Path) -> None:
    client = FakeClient()
    script = ScriptedModel([tool("write_file", path="calc.py", content="gone\n"), final("I may not write here.")])

    async def scenario() -> tuple[str, list[str], str]:
        session = AcpSession(cast(Client, client), load_settings({"workspace": workspace}), model=script.model())
        session.open_new()
        offered = [mode.id for mode in session.modes.available_modes]
        with pytest.raises(UsageError, match="configured mode is 'code'"):
            session.set_mode("nonsense")
        session.set_mode("ask")
        stop = await session.prompt("empty calc.py")
        current = session.modes.current_mode_id
        session.close()
        return stop, offered, current

    stop, offered, current = asyncio.run(scenario())
    assert offered == ["ask", "architect", "code", "semantic"] and current == "ask"
    assert stop == "end_turn" and (workspace / "calc.py").read_text().startswith("def subtract")
    assert client.asked == []  # ask mode does not even offer write_file: nobody is asked, nothing runs
    assert not [u for u in client.updates if isinstance(u, ToolCallProgress) and u.status == "completed"]


def test_under_a_narrow_configured_mode_the_editor_cannot_widen_it() -> None:
    assert modes_under(Policy(level=2, mode="ask")) == ["ask"]
    assert modes_under(Policy(level=2, mode="architect")) == ["ask", "architect"]
    with pytest.raises(UsageError, match=r"configured mode is 'ask'.*only narrow \(to ask\)"):
        check_mode("code", Policy(level=2, mode="ask"))
    with pytest.raises(UsageError, match=r"mode 'yolo' is not available"):
        check_mode("yolo", Policy(level=2, mode="code"))
    assert check_mode("ask", Policy(level=3, mode="code", auto_approve=True)) == Policy(
        level=3, mode="ask", auto_approve=True
    )  # the configured policy, narrowed: level and --yes stay
    state = mode_state("ask", Policy(level=2, mode="code"))
    assert state.current_mode_id == "ask" and all(m.description for m in state.available_modes)
