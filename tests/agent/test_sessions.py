"""Sessions: a conversation saved after every step, continued, resumed and forked, whatever stopped its run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.errors import ChrysalisError, TaskStopped, UsageError
from chrysalis.events import Event, Start
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from tests.helpers import session_for


def prompts(messages: list[ModelMessage]) -> list[str]:
    return [str(p.content) for m in messages for p in m.parts if isinstance(p, UserPromptPart)]


def returns(messages: list[ModelMessage]) -> list[str]:
    return [str(p.content) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


def test_a_new_session_is_stored_with_its_first_task_and_the_start_event_names_it(workspace: Path) -> None:
    events: list[Event] = []
    session = session_for(workspace, ScriptedModel([final("hello")]), events)
    asyncio.run(session.run("say hello"))
    (start,) = [e for e in events if isinstance(e, Start)]
    info = session.stores.sessions.get(start.session_id or "")
    assert info.id == session.session_id and info.title == "say hello" and info.workspace == str(workspace)
    assert (info.runs, info.steps, info.messages) == (1, 1, 2)
    session.close()


def test_a_reserved_id_is_the_stored_sessions_and_nothing_is_stored_before_the_first_run(workspace: Path) -> None:
    events: list[Event] = []
    session = session_for(workspace, ScriptedModel([final("hello")]), events)
    reserved = session.conversation.reserve()
    assert session.conversation.reserve() == reserved and session.session_id == reserved
    assert session.stores.sessions.recent(workspace) == []  # an editor's session that never runs leaves nothing
    asyncio.run(session.run("say hello"))
    (start,) = [e for e in events if isinstance(e, Start)]
    info = session.stores.sessions.get(reserved)
    assert start.session_id == reserved and info.title == "say hello" and info.messages == 2
    session.close()


def test_a_run_stopped_by_max_steps_is_continued_with_its_tool_results(workspace: Path) -> None:
    first = ScriptedModel([tool("read_file", path="calc.py")])  # reads forever: --max-steps stops it
    stopped = session_for(workspace, first, max_steps=2)
    with pytest.raises(TaskStopped):
        asyncio.run(stopped.run("what does calc.py do?"))
    stopped.close()

    second = ScriptedModel([final("It subtracts, wrongly: it adds.")])
    later = session_for(workspace, second)
    info = later.conversation.continue_latest()
    result = asyncio.run(later.run("go on: answer now"))
    later.close()
    assert result.output == "It subtracts, wrongly: it adds." and later.session_id == info.id
    seen = second.seen[0]
    assert prompts(seen) == ["what does calc.py do?", "go on: answer now"]
    assert any("return a + b" in text for text in returns(seen))  # the earlier run's tool result, not lost
    with Stores.open(later.settings.home) as stores:
        stored = stores.sessions.get(info.id)
    assert (stored.runs, stored.steps) == (2, 3)


def test_a_run_interrupted_mid_tool_call_is_continued_with_that_call_closed(workspace: Path) -> None:
    def hangs(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1:  # the tool ran; the next request is where Ctrl-C lands
            raise KeyboardInterrupt
        return ModelResponse(parts=[ToolCallPart("read_file", {"path": "calc.py"})])

    interrupted = session_for(workspace, FunctionModel(hangs))
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(interrupted.run("look at calc.py"))
    interrupted.close()

    script = ScriptedModel([final("done")])
    later = session_for(workspace, script)
    later.conversation.continue_latest()
    asyncio.run(later.run("and now?"))
    later.close()
    assert prompts(script.seen[0]) == ["look at calc.py", "and now?"]
    assert any("return a + b" in text for text in returns(script.seen[0]))


def test_resume_by_id_prefix_and_fork_leaves_the_original_as_it_was(workspace: Path) -> None:
    origin = session_for(workspace, ScriptedModel([final("one")]))
    asyncio.run(origin.run("first task"))
    origin_id = origin.session_id or ""
    origin.close()

    forked_script = ScriptedModel([final("two")])
    forked = session_for(workspace, forked_script)
    info = forked.conversation.fork(origin_id[:6])
    asyncio.run(forked.run("in the fork"))
    forked.close()
    assert info.forked_from == origin_id and info.id != origin_id
    assert prompts(forked_script.seen[0]) == ["first task", "in the fork"]

    resumed_script = ScriptedModel([final("three")])
    resumed = session_for(workspace, resumed_script)
    resumed.conversation.resume(origin_id)
    asyncio.run(resumed.run("back in the original"))
    resumed.close()
    assert prompts(resumed_script.seen[0]) == ["first task", "back in the original"]  # nothing of the fork


def test_unknown_or_foreign_sessions_are_usage_errors_that_say_what_to_do(workspace: Path, tmp_path: Path) -> None:
    session = session_for(workspace, ScriptedModel([final("x")]))
    with pytest.raises(UsageError, match=r"--resume nope: no session 'nope'; chrysalis sessions lists them"):
        session.conversation.resume("nope")
    with pytest.raises(UsageError, match="--continue: there is no earlier session in"):
        session.conversation.continue_latest()
    asyncio.run(session.run("here"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = session_for(elsewhere, ScriptedModel([final("y")]))
    with pytest.raises(UsageError, match=rf"--fork {session.session_id}: .*add --workspace {workspace}"):
        other.conversation.fork(session.session_id or "")
    session.close()
    other.close()


def test_a_second_run_of_the_same_session_object_adds_to_its_session(workspace: Path) -> None:
    session = session_for(workspace, ScriptedModel([final("a"), final("b")]))
    asyncio.run(session.run("one"))
    asyncio.run(session.run("two"))
    (info,) = session.stores.sessions.recent(workspace)
    assert (info.runs, info.messages, info.title) == (2, 4, "one")
    session.close()


def test_a_run_that_fails_before_its_first_step_leaves_no_empty_session(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "model": "openai:gpt-4o-mini"})  # no key: it cannot be built
    session = AgentSession(settings)
    with pytest.raises(ChrysalisError):
        asyncio.run(session.run("hello"))
    assert session.stores.sessions.recent() == []
    session.close()
