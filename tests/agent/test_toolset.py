"""The gate (``GatedTools``, ``chrysalis.agent.gate``): each wrapper's concern on real tools, no model."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.guards import RunGuards
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.toolset import MAX_DENIALS, GatedTools
from chrysalis.config import load_settings
from chrysalis.errors import PolicyDenied
from chrysalis.events import ApprovalRequest, Event, RedFlag, ToolCall, ToolResultEvent
from chrysalis.evolve.priority import plan_for
from chrysalis.stores import Stores
from chrysalis.tools.policy import Policy
from chrysalis.tools.registry import builtin_tools

WRITE = {"path": "notes.md", "content": "hello\n"}


@pytest.fixture
def stores(chrysalis_home: Path) -> Iterator[Stores]:
    with Stores.open(chrysalis_home) as opened:
        yield opened


def gate(
    workspace: Path, stores: Stores, events: list[Event], *, policy: Policy | None = None, **kw: Any
) -> GatedTools:
    settings = load_settings({"workspace": workspace, "level": 0} | kw.pop("flags", {}))
    return GatedTools.for_run(
        settings,
        builtin_tools(),
        run_id="r1",
        checkpoints=stores.checkpoints,
        emit=events.append,
        approver=kw.pop("approver", None),
        limits=kw.pop("limits", None) or RunLimits.of(settings, plan_for(settings.priority)),
        policy=policy,
        **kw,
    )


def outcomes(events: list[Event]) -> list[str]:
    return [e.decision for e in events if isinstance(e, ToolResultEvent)]


def test_the_gate_decides_by_the_policy_it_is_given_not_one_built_again(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    given = Policy(level=3, mode="code")
    tools = gate(workspace, stores, events, policy=given)  # the settings say level 0
    assert tools.policy is given and tools.context.writable
    assert asyncio.run(tools.call("write_file", WRITE, "c1"))["ok"]
    assert (workspace / "notes.md").read_text() == "hello\n" and outcomes(events) == ["allow"]
    assert not gate(workspace, stores, [], flags={"level": 2}).context.writable  # built from the settings


def test_each_outcome_is_reported_and_the_second_denial_ends_the_run(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    tools = gate(workspace, stores, events, flags={"level": 2})  # writes ask; nobody can approve here
    assert asyncio.run(tools.call("read_file", {"path": "calc.py"}, "c1"))["ok"]
    assert not asyncio.run(tools.call("nope", {}, "c2"))["ok"]
    assert not asyncio.run(tools.call("read_file", {}, "c3"))["ok"]  # bad arguments: refused before the policy
    declined = asyncio.run(tools.call("write_file", WRITE, "c4"))
    assert "It was not run: no one can approve it here (rerun with --yes)" in declined["error"]
    assert len(tools.denials) == MAX_DENIALS - 1
    with pytest.raises(PolicyDenied, match="rerun with --yes"):
        asyncio.run(tools.call("write_file", WRITE | {"path": "other.md"}, "c5"))
    assert outcomes(events) == ["allow", "refused", "refused", "declined", "declined"]
    assert not (workspace / "notes.md").exists() and not (workspace / "other.md").exists()


def test_the_gate_counts_to_the_limits_of_its_run(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    limits = RunLimits(max_steps=5, budget_usd=None, timeout_s=None, check_retries=0, max_denials=1, max_red_flags=3)
    tools = gate(workspace, stores, events, flags={"level": 2}, limits=limits)
    assert tools.guards.max_red_flags == 3 and not tools.guards.stuck
    with pytest.raises(PolicyDenied, match="rerun with --yes"):  # the first refusal is this run's last
        asyncio.run(tools.call("write_file", WRITE, "c1"))
    assert tools.denials and outcomes(events) == ["declined"] and not (workspace / "notes.md").exists()
    tools.denials.clear()  # as a server does between calls: the run goes on, for its red flags
    for call_id in ("c2", "c3", "c4", "c5", "c6"):  # the third identical read on is a red flag
        asyncio.run(tools.call("read_file", {"path": "calc.py"}, call_id))
    assert tools.guards.red_flags == 3 and tools.guards.stuck


def test_an_approved_call_runs_and_a_declined_one_does_not(workspace: Path, stores: Stores) -> None:
    answers = iter([True, False])
    asked: list[tuple[str, str]] = []

    async def approver(tool: str, args: dict[str, Any], reason: str) -> bool:
        asked.append((tool, reason))
        return next(answers)

    events: list[Event] = []
    tools = gate(workspace, stores, events, flags={"level": 2}, approver=approver)
    assert asyncio.run(tools.call("write_file", WRITE, "c1"))["ok"]
    refused = asyncio.run(tools.call("write_file", WRITE | {"path": "other.md"}, "c2"))
    assert "It was not run: the user declined it." in refused["error"] and not (workspace / "other.md").exists()
    assert [tool for tool, _ in asked] == ["write_file", "write_file"] and outcomes(events) == ["approved", "declined"]
    assert [e.approved for e in events if isinstance(e, ApprovalRequest)] == [True, False]


def test_a_protected_test_is_a_red_flag_not_a_denial_and_points_at_the_code(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    tools = gate(workspace, stores, events, flags={"level": 3, "protect_tests": True})
    edit = {"path": "tests/test_calc.py", "old_text": "== 2", "new_text": "== 8"}
    for call_id in ("c1", "c2"):
        refused = asyncio.run(tools.call("edit_file", edit, call_id))
        assert "Test files are protected" in refused["error"] and "Here is calc.py:" in refused["error"]
    assert "Red flag: you already called edit_file" in asyncio.run(tools.call("edit_file", edit, "c3"))["error"]
    assert tools.denials == [] and tools.guards.red_flags == 3
    assert [e.kind for e in events if isinstance(e, RedFlag)] == ["protected_file", "protected_file", "repeated_call"]
    assert outcomes(events) == ["denied", "denied", "refused"]


def test_what_a_server_sets_on_the_gate_reaches_the_wrappers(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    tools = gate(workspace, stores, events, flags={"level": 3, "yes": True})
    for call_id in ("c1", "c2"):
        asyncio.run(tools.call("read_file", {"path": "calc.py"}, call_id))
    tools.guards = RunGuards()  # a fresh count: the next identical call is no repeat
    assert asyncio.run(tools.call("read_file", {"path": "calc.py"}, "c3"))["ok"]
    tools.policy = Policy(level=0, mode="code")
    assert "Rerun with --level 2" in asyncio.run(tools.call("write_file", WRITE, "c4"))["error"]
    tools.specs = {"list_dir": builtin_tools()["list_dir"]}
    assert "Unknown tool 'read_file'" in asyncio.run(tools.call("read_file", {"path": "calc.py"}, "c5"))["error"]


def test_tool_call_events_read_the_step_from_the_reader_given_or_the_value_set(workspace: Path, stores: Stores) -> None:
    events: list[Event] = []
    steps = iter([4, 5])
    tools = gate(workspace, stores, events, step=lambda: next(steps))
    asyncio.run(tools.call("list_dir", {"path": "."}, "c1"))
    asyncio.run(tools.call("list_dir", {"path": "tests"}, "c2"))
    tools.step = 9  # what the loop does today
    asyncio.run(tools.call("read_file", {"path": "calc.py"}, "c3"))
    assert [e.step for e in events if isinstance(e, ToolCall)] == [4, 5, 9] and tools.step == 9
