"""The framework runs repair itself when the tests still fail at the answer or the model stalls (issue 33, item 8)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.errors import TaskStopped
from chrysalis.events import Check, Event, FrameworkCall, RepairEnd, RunResult, ToolCall
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.stores import Stores
from tests.repair.conftest import FIXED_LINE, STATS

RIGHT = json.dumps({"line": 6, "code": "return total / len(values)"})
TASK = "fix the bug so the tests pass"


class Model:
    """The agent's turns come from ``turn``; repair's samples (requests without tools) get ``sample``."""

    def __init__(self, turn: Any, sample: ScriptedReply | str = RIGHT) -> None:
        self.turn = turn
        self.sample = sample
        self.turns = 0

    def __call__(self, body: dict[str, Any]) -> ScriptedReply | str:
        if not body.get("tools"):
            return self.sample
        self.turns += 1
        reply: ScriptedReply | str = self.turn(self.turns)
        return reply


def run(
    project: Path,
    turn: Any,
    *,
    level: int = 3,
    mode: str = "code",
    sample: ScriptedReply | str = RIGHT,
    task: str = TASK,
) -> tuple[RunResult | None, list[Event]]:
    """One run of ``task`` on the scripted model; the result, or None when it stopped without one."""
    events: list[Event] = []
    with ScriptedOpenAIServer(Model(turn, sample)) as server:
        settings = load_settings(
            {"workspace": project, "model": "m", "base_url": server.base_url, "level": level, "mode": mode, "yes": True}
        )
        session = AgentSession(settings, on_event=events.append)
        try:
            result: RunResult | None = asyncio.run(session.run(task))
        except TaskStopped:
            result = None
        finally:
            session.close()
    return result, events


def framework_calls(events: list[Event]) -> list[FrameworkCall]:
    return [e for e in events if isinstance(e, FrameworkCall)]


def test_an_answer_while_the_tests_fail_gets_repair_from_the_framework(project: Path, chrysalis_home: Path) -> None:
    result, events = run(project, lambda _turn: "Done, the bug is fixed.")
    (called,) = framework_calls(events)
    assert called.trigger == "failed_check" and called.tool == "repair" and "tests failed" in called.reason
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    assert call.tool == "repair" and call.call_id == called.call_id
    assert events.index(called) < events.index(call)
    (end,) = [e for e in events if isinstance(e, RepairEnd)]
    assert end.applied
    checks = [e.passed for e in events if isinstance(e, Check)]
    assert checks == [False, True]
    assert result is not None and result.success and result.verified is True
    assert result.output.startswith("Done, the bug is fixed.") and "Chrysalis ran repair itself" in result.output
    assert FIXED_LINE in (project / "stats.py").read_text()
    with Stores.open(chrysalis_home) as stores:  # the framework's patch is undone like the model's
        stores.checkpoints.undo(project, result.run_id)
    assert (project / "stats.py").read_text() == STATS


def test_a_model_going_in_circles_gets_repair_before_the_run_stops(project: Path) -> None:
    result, events = run(project, lambda _turn: ScriptedReply.tool_call("read_file", {"path": "stats.py"}))
    (called,) = framework_calls(events)
    assert called.trigger == "stalled" and "repeating itself" in called.reason
    assert result is not None and result.success and result.verified is True
    assert result.output.startswith("The model stalled")
    assert FIXED_LINE in (project / "stats.py").read_text()


def test_the_framework_calls_repair_once_and_never_when_the_model_did(project: Path) -> None:
    def turn(n: int) -> ScriptedReply | str:
        return ScriptedReply.tool_call("repair") if n == 1 else "Done."

    result, events = run(project, turn)
    assert framework_calls(events) == []
    assert result is not None and result.verified is True


@pytest.mark.parametrize(("level", "mode"), [(1, "code"), (3, "architect"), (3, "ask")])
def test_no_framework_repair_where_the_policy_lets_nothing_be_written(project: Path, level: int, mode: str) -> None:
    _, events = run(project, lambda _turn: "Done.", level=level, mode=mode)
    assert framework_calls(events) == []
    assert (project / "stats.py").read_text() == STATS


def test_when_repairs_own_model_fails_the_run_goes_on_as_before(project: Path) -> None:
    replies = iter(["Done.", "Done.", "Done.", "Done."])
    result, events = run(project, lambda _turn: next(replies), sample=ScriptedReply.error(500, "sampling broke"))
    (called,) = framework_calls(events)
    assert called.trigger == "failed_check"
    assert result is not None and result.verified is False  # the model had its answers sent back, then it stood
    assert (project / "stats.py").read_text() == STATS


def test_an_order_to_add_code_answered_without_a_change_gets_no_repair_the_tests_already_pass(
    project: Path,
) -> None:
    (project / "stats.py").write_text(STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE))
    result, events = run(project, lambda _turn: "Done.", task="Add a median() function to stats.py")
    assert framework_calls(events) == []  # nothing fails: repair has nothing to do, so it is not called
    assert result is not None and not result.success
    assert result.problem == "the task asks for a change to the code, and no file was changed"
