"""The ``repair`` tool in the agent loop: offered when the model can be sampled directly, pointed to by run_tests."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import Event, RepairEnd, RunResult
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


def run(project: Path, level: int) -> tuple[Agent, RunResult, list[Event]]:
    script, events = Agent(), list[Event]()
    with ScriptedOpenAIServer(script) as server:
        settings = load_settings(
            {"workspace": project, "model": "m", "base_url": server.base_url, "level": level, "yes": True}
        )
        session = AgentSession(settings, on_event=events.append)
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
