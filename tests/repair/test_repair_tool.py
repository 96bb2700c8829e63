"""The ``repair`` tool in the agent loop: offered when the model can be sampled directly, pointed to by run_tests."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from chrysalis.agent.gate.approval import Approver
from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import ApprovalRequest, Event, RepairEnd, RunResult
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.stores import Stores
from tests.repair.conftest import FIXED_LINE, STATS

RIGHT = json.dumps({"line": 6, "code": "return total / len(values)"})


class Agent:
    """The agent's turns (requests with tools): run the tests, call repair, answer; samples (no tools) get RIGHT."""

    def __init__(self) -> None:
        self.turns = 0
        self.tool_names: list[str] = []
        self.saw_next_step = False

    def __call__(self, body: dict[str, Any]) -> ScriptedReply | str:
        if not body.get("tools"):
            return RIGHT
        self.turns += 1
        self.tool_names = [tool["function"]["name"] for tool in body["tools"]]
        self.saw_next_step |= any("Next: call repair" in str(m.get("content")) for m in body["messages"])
        if self.turns == 1:
            return ScriptedReply.tool_call("run_tests")
        if self.turns == 2:
            return ScriptedReply.tool_call("repair", {"hint": "mean"})
        return "Repaired mean."


def run(project: Path, level: int, *, approver: Approver | None = None) -> tuple[Agent, RunResult, list[Event]]:
    """A run at ``level``: with ``--yes``, or without it and with ``approver`` when one is given."""
    script, events = Agent(), list[Event]()
    with ScriptedOpenAIServer(script) as server:
        settings = load_settings(
            {"workspace": project, "model": "m", "base_url": server.base_url, "level": level, "yes": approver is None}
        )
        session = AgentSession(settings, on_event=events.append, approver=approver)
        result = asyncio.run(session.run("make the failing tests pass"))
        session.close()
    return script, result, events


def test_the_agent_calls_repair_and_the_fix_is_applied_checked_and_undoable(
    project: Path, chrysalis_home: Path
) -> None:
    script, result, events = run(project, 3)
    assert "repair" in script.tool_names and script.saw_next_step
    (end,) = [e for e in events if isinstance(e, RepairEnd)]
    assert end.applied and end.run_id == result.run_id
    assert result.success and result.verified is True and FIXED_LINE in (project / "stats.py").read_text()
    with Stores.open(chrysalis_home) as stores:
        stores.checkpoints.undo(project, result.run_id)
    assert (project / "stats.py").read_text() == STATS


def test_repair_is_not_offered_below_level_2(project: Path) -> None:
    script, _, _ = run(project, 1)
    assert "repair" not in script.tool_names


def test_the_repair_tool_does_not_write_a_file_a_deny_rule_forbids(project: Path) -> None:
    config = project / ".chrysalis" / "config.toml"
    config.parent.mkdir()
    config.write_text('[permissions]\ndeny = ["edit_file(stats.py)"]\n')
    _, _, events = run(project, 3)
    (end,) = [e for e in events if isinstance(e, RepairEnd)]
    assert not end.applied and (project / "stats.py").read_text() == STATS


def test_at_level_2_repair_asks_once_at_the_diff_of_its_patch(project: Path) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def approver(tool: str, args: dict[str, Any], _reason: str) -> bool:
        asked.append((tool, args))
        return True

    script, result, events = run(project, 2, approver=approver)
    assert "repair" in script.tool_names
    assert [tool for tool, _ in asked] == ["write_file"]  # not the repair call itself: its patch, once
    assert asked[0][1]["path"] == "stats.py" and FIXED_LINE in asked[0][1]["content"]
    assert [(e.tool, e.approved) for e in events if isinstance(e, ApprovalRequest)] == [("write_file", True)]
    (end,) = [e for e in events if isinstance(e, RepairEnd)]
    assert end.applied and result.success and FIXED_LINE in (project / "stats.py").read_text()
