"""The agent loop on scripted models: events, limits, policy, guards, records."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.learning import task_type
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.errors import PolicyDenied, TaskStopped
from chrysalis.events import ErrorEvent, Event, RedFlag, RunResult, ToolCall, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from tests.helpers import run_agent, session_for

FIX = "    return a - b\n"
BUG = "    return a + b\n"


def fix_script() -> ScriptedModel:
    return ScriptedModel(
        [
            tool("read_file", path="calc.py"),
            tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX),
            tool("shell", command="python -m pytest -q -p no:cacheprovider"),
            final("Fixed subtract; the tests pass."),
        ]
    )


def test_a_run_reads_edits_checks_and_finishes(workspace: Path) -> None:
    events: list[Event] = []
    session = session_for(workspace, fix_script(), events, level=3, yes=True)
    result = asyncio.run(session.run("make the failing test pass"))
    session.close()

    assert result.success
    assert result.output == "Fixed subtract; the tests pass."
    assert (workspace / "calc.py").read_text().endswith(FIX)
    kinds = [e.type for e in events]
    assert kinds[0] == "start" and kinds[-1] == "final"
    assert [e.tool for e in events if isinstance(e, ToolCall)] == ["read_file", "edit_file", "shell"]
    shell_result = [e for e in events if isinstance(e, ToolResultEvent) and e.tool == "shell"][0]
    assert shell_result.ok and "1 passed" in str(shell_result.result)
    assert result.steps == 4


def test_the_run_is_recorded_and_can_be_undone(workspace: Path, chrysalis_home: Path) -> None:
    session = session_for(workspace, fix_script(), [], level=3, yes=True)
    result = asyncio.run(session.run("fix the failing test"))
    session.close()
    with Stores.open(chrysalis_home) as stores:
        traced = [e["type"] for e in stores.traces.events(result.run_id)]
        assert traced[0] == "start" and traced[-1] == "final" and "tool_call" in traced
        summary = stores.evals.summary()
        assert any(row.task_type == "fix" and row.runs == 1 for row in summary)
        report = stores.checkpoints.undo(workspace)
    assert [p.name for p in report.restored] == ["calc.py"]
    assert (workspace / "calc.py").read_text().endswith(BUG)


def test_max_steps_stops_with_a_clear_reason(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel(
        [tool("list_dir", path="."), tool("read_file", path="calc.py"), tool("list_dir", path="tests")]
    )
    session = session_for(workspace, script, events, max_steps=2)
    with pytest.raises(TaskStopped, match="--max-steps 2") as caught:
        asyncio.run(session.run("look around"))
    assert caught.value.reason == "max_steps"
    error = events[-1]
    assert isinstance(error, ErrorEvent) and error.reason == "max_steps" and error.exit_code == 1


def test_budget_stops_a_priced_model(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel([tool("list_dir", path="."), final("done")])
    session = session_for(workspace, script, events, budget="0.0000001", model="openai:gpt-4o")
    with pytest.raises(TaskStopped, match="--budget") as caught:
        asyncio.run(session.run("look around"))
    assert caught.value.reason == "budget"


def test_timeout_stops_a_slow_model(workspace: Path) -> None:
    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(5)
        return ModelResponse(parts=[TextPart("late")])

    events: list[Event] = []
    session = session_for(workspace, FunctionModel(slow), events, timeout="0.2")
    with pytest.raises(TaskStopped, match="--timeout") as caught:
        asyncio.run(session.run("anything"))
    assert caught.value.reason == "timeout"
    assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "timeout"


def test_a_write_at_level_0_is_refused_then_the_run_ends_with_exit_3(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel([tool("write_file", path="new.py", content="x = 1\n")])
    session = session_for(workspace, script, events, level=0)
    with pytest.raises(PolicyDenied, match="--level 2") as caught:
        asyncio.run(session.run("write a file"))
    assert caught.value.exit_code == 3
    refusals = [e for e in events if isinstance(e, ToolResultEvent)]
    assert refusals and not refusals[0].ok and "--level 2" in (refusals[0].error or "")
    assert not (workspace / "new.py").exists()


def run_limits(monkeypatch: pytest.MonkeyPatch, **changes: int) -> None:
    """Every run's ``RunLimits`` from here on: those of its settings and plan, with ``changes``."""
    of = RunLimits.of
    monkeypatch.setattr(RunLimits, "of", classmethod(lambda cls, s, plan: replace(of(s, plan), **changes)))


def test_a_run_ends_at_its_own_max_denials(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = ScriptedModel([tool("write_file", path="new.py", content="x = 1\n"), final("ok")])
    assert run_agent(workspace, script, "write a file", level=0)[0].output == "ok"  # one refusal: the run goes on
    run_limits(monkeypatch, max_denials=1)
    script = ScriptedModel([tool("write_file", path="new.py", content="x = 1\n"), final("ok")])
    with pytest.raises(PolicyDenied, match="--level 2"):  # this run's first refusal is its last
        run_agent(workspace, script, "write a file", level=0)
    assert not (workspace / "new.py").exists()


def test_a_run_is_stuck_at_its_own_max_red_flags(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_limits(monkeypatch, max_red_flags=1)
    events: list[Event] = []
    session = session_for(workspace, ScriptedModel([tool("read_file", path="calc.py")]), events, max_steps=20)
    with pytest.raises(TaskStopped) as caught:
        asyncio.run(session.run("read it"))
    assert caught.value.reason == "stuck"
    assert len([e for e in events if isinstance(e, RedFlag)]) == 1  # the third identical read, the only one
    assert len([e for e in events if isinstance(e, ToolResultEvent)]) == 3


def test_ask_mode_offers_no_tool_that_could_change_anything(workspace: Path) -> None:
    # a model that calls a tool it was not offered gets nowhere
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("subtract adds")])
    session = session_for(workspace, script, [], level=3, yes=True, mode="ask", profile="all")
    assert asyncio.run(session.run("explain calc.py")).output == "subtract adds"
    offered = set(script.offered[0])
    assert {"read_file", "grep", "web_fetch"} <= offered
    assert not offered & {"edit_file", "write_file", "apply_patch", "shell", "run_tests", "git_commit"}
    assert (workspace / "calc.py").read_text().endswith(BUG)


@pytest.mark.parametrize(
    ("level", "allowed_by"), [(0, "--level 2"), (2, "--yes")], ids=["level-too-low", "no-one-to-approve"]
)
def test_a_refused_write_is_offered_not_run_and_names_the_flag_that_allows_it(
    workspace: Path, level: int, allowed_by: str
) -> None:
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("ok")])
    _, events = run_agent(workspace, script, "fix calc.py", level=level)
    assert "edit_file" in script.offered[0]
    refused = [e for e in events if isinstance(e, ToolResultEvent)][0]
    assert not refused.ok and allowed_by in (refused.error or "")
    assert (workspace / "calc.py").read_text().endswith(BUG)


def test_writes_need_approval_at_level_2(workspace: Path) -> None:
    asked: list[str] = []

    async def approve(name: str, args: dict[str, Any], reason: str) -> bool:
        asked.append(name)
        return True

    settings = load_settings({"workspace": workspace, "level": 2})
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("ok")])
    session = AgentSession(settings, model=script.model(), approver=approve)
    asyncio.run(session.run("fix it"))
    assert asked == ["edit_file"]
    assert (workspace / "calc.py").read_text().endswith(FIX)


def test_test_files_are_protected(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel(
        [
            tool("write_file", path="tests/test_calc.py", content="def test_nothing():\n    pass\n"),
            final("done"),
        ]
    )
    session = session_for(workspace, script, events, level=3, yes=True)
    asyncio.run(session.run("make the failing test pass"))
    assert "assert subtract(5, 3) == 2" in (workspace / "tests" / "test_calc.py").read_text()
    assert any(isinstance(e, RedFlag) and e.kind == "protected_file" for e in events)


NEW_TEST = "from calc import subtract\n\n\ndef test_subtract_zero():\n    assert subtract(4, 0) == 4\n"


@pytest.mark.parametrize(
    ("task", "flags", "written"),
    [
        ("add a test for subtract with zero", {}, True),  # the task asks for a test: it may be written
        ("add a test for subtract with zero", {"protect_tests": True}, False),  # unless the user said so
        ("make the failing test pass", {}, False),  # there the tests are the judge, not the work
    ],
)
def test_a_task_that_asks_for_tests_may_write_them_unless_the_user_protected_them(
    workspace: Path, task: str, flags: dict[str, Any], written: bool
) -> None:
    events: list[Event] = []
    script = ScriptedModel([tool("write_file", path="tests/test_zero.py", content=NEW_TEST), final("done")])
    session = session_for(workspace, script, events, level=2, yes=True, **flags)
    asyncio.run(session.run(task))
    assert (workspace / "tests" / "test_zero.py").exists() is written
    assert any(isinstance(e, RedFlag) and e.kind == "protected_file" for e in events) is not written


def test_repeated_identical_calls_are_red_flagged_then_stopped(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel([tool("read_file", path="calc.py")])
    session = session_for(workspace, script, events, max_steps=20)
    with pytest.raises(TaskStopped) as caught:
        asyncio.run(session.run("read it"))
    assert caught.value.reason == "stuck"
    flags = [e for e in events if isinstance(e, RedFlag)]
    assert flags and flags[0].kind == "repeated_call"
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert results[0].ok and results[1].ok and not results[2].ok
    assert "Red flag" in (results[2].error or "")


def test_a_failed_edit_tells_the_model_to_read_again(workspace: Path) -> None:
    events: list[Event] = []
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text="nope", new_text="x"), final("gave up")])
    session = session_for(workspace, script, events, level=3, yes=True)
    asyncio.run(session.run("fix"))
    failed = [e for e in events if isinstance(e, ToolResultEvent)][0]
    assert not failed.ok and "read_file" in (failed.error or "")


def test_history_carries_over_between_runs(workspace: Path) -> None:
    script = ScriptedModel([final("first"), final("second")])
    session = session_for(workspace, script, [])
    asyncio.run(session.run("one"))
    asyncio.run(session.run("two"))
    assert len(script.seen[-1]) > 1


def test_final_event_carries_totals(workspace: Path) -> None:
    events: list[Event] = []
    session = session_for(workspace, ScriptedModel([final("hello")]), events)
    asyncio.run(session.run("say hello"))
    done = events[-1]
    assert isinstance(done, RunResult) and done.steps == 1 and done.cost_usd == 0.0 and done.input_tokens > 0


@pytest.mark.parametrize(
    ("task", "kind"),
    [("fix the failing test", "fix"), ("explain calc.py", "explain"), ("rename foo", "refactor"), ("hmm", "other")],
)
def test_task_type(task: str, kind: str) -> None:
    assert task_type(task) == kind


def test_a_write_too_large_to_checkpoint_is_refused_not_fatal(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chrysalis.stores import checkpoints

    monkeypatch.setattr(checkpoints, "MAX_CHECKPOINT_BYTES", 10)
    events: list[Event] = []
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("could not")])
    session = session_for(workspace, script, events, level=3, yes=True)
    result = asyncio.run(session.run("fix"))
    refused = [e for e in events if isinstance(e, ToolResultEvent)][0]
    assert result.output == "could not"
    assert not refused.ok and "Not written" in (refused.error or "")
    assert (workspace / "calc.py").read_text().endswith(BUG)


def test_each_run_saves_a_new_context_version(workspace: Path, chrysalis_home: Path) -> None:
    session = session_for(workspace, ScriptedModel([final("one"), final("two")]), [], mode="ask", priority="cheap")
    asyncio.run(session.run("first"))
    asyncio.run(session.run("second"))
    session.close()
    with Stores.open(chrysalis_home) as stores:
        name = f"workspace:{workspace}"
        assert [v for v, _ in stores.context.versions(name)] == [1, 2]
        saved = stores.context.load(name)
        (conversation,) = stores.sessions.recent(workspace)
        messages = stores.sessions.messages(conversation.id)
    assert saved.mode == "ask" and saved.priority == "cheap" and "Mode: ask" in saved.system
    assert saved.history == ()  # the messages are the session's, not repeated in every context version
    assert len(messages) == 4 and messages[-1]["kind"] == "response" and conversation.title == "first"
    assert (conversation.runs, conversation.steps, conversation.id) == (2, 2, session.session_id)


def test_the_answer_streams_as_text_deltas(workspace: Path) -> None:
    from chrysalis.events import TextDelta
    from chrysalis.llm.testing import ScriptedChatBackend
    from chrysalis.llm.text_protocol import TextToolModel

    answer = "calc.py holds add and subtract; subtract adds by mistake."
    backend = ScriptedChatBackend(
        ['{"tool_to_use": "read_file", "parameters": {"path": "calc.py"}}', f'{{"final_answer": "{answer}"}}']
    )
    events: list[Event] = []
    settings = load_settings({"workspace": workspace})
    session = AgentSession(settings, model=TextToolModel(backend), on_event=events.append)
    result = asyncio.run(session.run("what is in calc.py?"))
    session.close()
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert result.output == answer
    assert len(deltas) > 1 and "".join(deltas) == answer  # pieces, as they came, without the JSON around them
    kinds = [e.type for e in events]
    assert kinds.index("tool_result") < kinds.index("text_delta") < kinds.index("final")


def test_an_answer_over_a_failing_check_is_not_a_success(workspace: Path, chrysalis_home: Path) -> None:
    events: list[Event] = []
    wrong = "    return a * b\n"
    script = ScriptedModel(
        [
            tool("edit_file", path="calc.py", old_text=BUG, new_text=wrong),
            tool("shell", command="python -m pytest -q -p no:cacheprovider"),
            final("done"),  # refused twice: the tests fail
            final("done"),
            final("done"),  # then accepted, but not as a success
        ]
    )
    session = session_for(workspace, script, events, level=3, yes=True)
    result = asyncio.run(session.run("fix the bug"))
    session.close()
    assert result.output == "done"
    assert not result.success and result.problem and "failed" in result.problem
    finals = [e for e in events if isinstance(e, RunResult)]
    assert finals and not finals[0].success and finals[0].problem == result.problem
    with Stores.open(chrysalis_home) as stores:
        assert stores.evals.summary()[0].success_rate == 0.0


def test_re_prompts_for_malformed_replies_are_traced(workspace: Path, chrysalis_home: Path) -> None:
    from chrysalis.llm.testing import ScriptedChatBackend
    from chrysalis.llm.text_protocol import TextToolModel

    backend = ScriptedChatBackend(['{"tool_to_use": "read_file", "parameters": {"path"', '{"final_answer": "ok"}'])
    events: list[Event] = []
    settings = load_settings({"workspace": workspace})
    session = AgentSession(settings, model=TextToolModel(backend), on_event=events.append)
    asyncio.run(session.run("look"))
    session.close()
    flags = [e for e in events if isinstance(e, RedFlag) and e.kind == "corrected_reply"]
    assert len(flags) == 1 and "not one valid JSON object" in flags[0].detail
    with Stores.open(chrysalis_home) as stores:
        kinds = [e["kind"] for e in stores.traces.events(flags[0].run_id) if e["type"] == "red_flag"]
    assert kinds == ["corrected_reply"]
