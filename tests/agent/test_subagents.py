"""Sub-agents: spawned by the model, run concurrently, narrowed policy, carved budget, cancelled with the tree."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import ErrorEvent, Event, RunResult, Start, ToolResultEvent

Step = tuple[str, Any]
BUG, FIX = "    return a + b\n", "    return a - b\n"


def call(name: str, **args: Any) -> Step:
    return ("tool", (name, args))


def answer(text: str) -> Step:
    return ("final", text)


def first_prompt(messages: list[ModelMessage]) -> str:
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    return str(part.content)
    return ""


class Tree:
    """One FunctionModel for a parent and its sub-agents: each conversation plays the script of its task.

    A task that starts with ``block`` waits for ``release`` (never set unless a test sets it), after
    setting ``started``, so a test can cancel a sub-agent in the middle of a model request.
    """

    def __init__(self, scripts: dict[str, list[Step]]) -> None:
        self.scripts = scripts
        self.offered: dict[str, set[str]] = {}
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.model = FunctionModel(self.respond, model_name="tree")

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        task = first_prompt(messages)
        key = next(k for k in self.scripts if task.startswith(k))
        self.offered.setdefault(key, {t.name for t in info.function_tools})
        if task.startswith("block"):
            self.started.set()
            await self.release.wait()
        script = self.scripts[key]
        index = min(sum(isinstance(m, ModelResponse) for m in messages), len(script) - 1)
        kind, payload = script[index]
        if kind == "final":
            return ModelResponse(parts=[TextPart(payload)])
        return ModelResponse(parts=[ToolCallPart(*payload)])


def session_for(workspace: Path, tree: Tree, events: list[Event], **flags: Any) -> AgentSession:
    settings = load_settings({"workspace": workspace, "profile": "all", "level": 2, "yes": True, **flags})
    return AgentSession(settings, model=tree.model, on_event=events.append)


def results(events: list[Event], tool: str) -> list[ToolResultEvent]:
    return [e for e in events if isinstance(e, ToolResultEvent) and e.tool == tool]


def eval_run_ids(home: Path) -> set[str]:
    with sqlite3.connect(home / "chrysalis.db") as db:
        return {row[0] for row in db.execute("SELECT run_id FROM evals")}


def test_two_sub_agents_run_and_the_parent_collects_their_answers(workspace: Path) -> None:
    tree = Tree(
        {
            "parent": [
                call("spawn_agent", task="fixer: fix subtract in calc.py", profile="editor"),
                call("spawn_agent", task="reader: what does calc.py do?", profile="researcher"),
                call("agent_status", id="sub-1"),
                call("agent_status", id="sub-2"),
                answer("Fixed subtract (sub-1); sub-2 says it subtracts."),
            ],
            "fixer": [
                call("read_file", path="calc.py"),
                call("edit_file", path="calc.py", old_text=BUG, new_text=FIX),
                answer("fixed"),
            ],
            "reader": [call("read_file", path="calc.py"), answer("it subtracts two numbers")],
        }
    )
    events: list[Event] = []
    session = session_for(workspace, tree, events)
    result = asyncio.run(session.run("parent: fix calc and explain it"))
    session.close()

    assert result.success and (workspace / "calc.py").read_text().endswith(FIX)
    statuses = [e.result for e in results(events, "agent_status")]
    assert [(s["id"], s["status"], s["answer"]) for s in statuses] == [
        ("sub-1", "done", "fixed"),
        ("sub-2", "done", "it subtracts two numbers"),
    ]
    starts = [e for e in events if isinstance(e, Start)]
    parent = starts[0]
    assert parent.parent_run_id is None
    assert [(s.parent_run_id, s.profile) for s in starts[1:]] == [
        (parent.run_id, "editor"),
        (parent.run_id, "researcher"),
    ]
    assert tree.offered["fixer"] <= {"read_file", "list_dir", "find", "grep", "edit_file", "write_file", "apply_patch"}
    assert not tree.offered["reader"] & {"edit_file", "write_file", "spawn_agent"}
    assert {"spawn_agent", "agent_status", "cancel_agent"} <= tree.offered["parent"]


def test_a_sub_agent_gets_no_more_than_its_parent(workspace: Path) -> None:
    tree = Tree(
        {
            "parent": [
                call("spawn_agent", task="wide: x", level=3),
                call("spawn_agent", task="wide: x", mode="code"),
                call("spawn_agent", task="narrow: x", level=0, mode="ask", profile="all"),
                call("agent_status", id="sub-1"),
                answer("ok"),
            ],
            "narrow": [call("edit_file", path="calc.py", old_text=BUG, new_text=FIX), answer("could not")],
        }
    )
    events: list[Event] = []
    session = session_for(workspace, tree, events, mode="architect")
    asyncio.run(session.run("parent: try"))
    session.close()

    spawns = results(events, "spawn_agent")
    assert not spawns[0].ok and "level 3" in (spawns[0].error or "") and "level 2" in (spawns[0].error or "")
    assert not spawns[1].ok and "'code'" in (spawns[1].error or "") and "'architect'" in (spawns[1].error or "")
    assert spawns[2].ok and spawns[2].result["level"] == 0 and spawns[2].result["mode"] == "ask"
    assert not tree.offered["narrow"] & {"edit_file", "write_file", "spawn_agent", "agent_status", "shell"}
    assert (workspace / "calc.py").read_text().endswith(BUG)


def test_budgets_are_carved_from_the_parent_and_spending_adds_up(workspace: Path) -> None:
    tree = Tree(
        {
            "parent": [
                call("spawn_agent", task="one: a"),
                call("spawn_agent", task="two: b"),
                call("agent_status", id="sub-1"),
                call("agent_status", id="sub-2"),
                answer("ok"),
            ],
            "one": [answer("1")],
            "two": [answer("2")],
        }
    )
    events: list[Event] = []
    prices = {"tree": {"input": 1000.0, "output": 1000.0}}  # USD per million tokens: each request costs cents
    session = session_for(
        workspace, tree, events, model="tree", base_url="http://127.0.0.1:9/v1", budget="10", prices=prices
    )
    result = asyncio.run(session.run("parent: split"))
    session.close()

    first, second = (e.result["budget_usd"] for e in results(events, "spawn_agent"))
    assert 4.5 < first < 5.0  # half of what the parent had left after its first request
    assert second < (10 - first) / 2
    children = [e for e in events if isinstance(e, RunResult) and e.run_id != result.run_id]
    assert len(children) == 2 and all(c.cost_usd > 0 for c in children)
    assert result.cost_usd > sum(c.cost_usd for c in children)  # the parent's own requests, plus theirs


def test_cancel_agent_stops_a_running_sub_agent(workspace: Path, chrysalis_home: Path) -> None:
    tree = Tree(
        {
            "parent": [
                call("spawn_agent", task="block: forever"),
                call("cancel_agent", id="sub-1"),
                answer("cancelled it"),
            ],
            "block": [answer("never")],
        }
    )
    events: list[Event] = []
    session = session_for(workspace, tree, events)
    result = asyncio.run(session.run("parent: start and stop"))
    session.close()

    assert result.success
    assert results(events, "cancel_agent")[0].result["status"] == "cancelled"
    child_start = next(e for e in events if isinstance(e, Start) and e.parent_run_id)
    stopped = [e for e in events if isinstance(e, ErrorEvent) and e.run_id == child_start.run_id]
    assert [e.reason for e in stopped] == ["interrupted"]
    assert eval_run_ids(chrysalis_home) == {result.run_id, child_start.run_id}


def test_the_parent_ending_cancels_what_is_still_running(workspace: Path) -> None:
    tree = Tree(
        {"parent": [call("spawn_agent", task="block: forever"), answer("done without it")], "block": [answer("never")]}
    )
    events: list[Event] = []
    session = session_for(workspace, tree, events)
    asyncio.run(session.run("parent: leave it"))
    session.close()
    assert [e.reason for e in events if isinstance(e, ErrorEvent)] == ["interrupted"]


def test_interrupting_the_parent_cancels_the_whole_tree_and_keeps_the_stores_consistent(
    workspace: Path, chrysalis_home: Path
) -> None:
    parent = [
        call("spawn_agent", task="block: a"),
        call("spawn_agent", task="block: b"),
        call("agent_status", id="sub-1"),
        answer("never"),
    ]
    tree = Tree({"parent": parent, "block": [answer("never")]})
    events: list[Event] = []
    session = session_for(workspace, tree, events)

    async def interrupt() -> None:
        run = asyncio.create_task(session.run("parent: wait"))
        while len([e for e in events if isinstance(e, Start)]) < 3:  # the parent and both sub-agents have started
            await asyncio.sleep(0)
        await tree.started.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert others == [], "a sub-agent outlived its parent"

    asyncio.run(interrupt())
    session.close()
    run_ids = {e.run_id for e in events if isinstance(e, Start)}
    interrupted = {e.run_id for e in events if isinstance(e, ErrorEvent) and e.reason == "interrupted"}
    assert interrupted == run_ids and len(run_ids) == 3
    assert eval_run_ids(chrysalis_home) == run_ids


def test_other_profiles_and_sub_agents_get_no_sub_agent_tools(workspace: Path) -> None:
    tree = Tree({"parent": [answer("ok")]})
    session = session_for(workspace, tree, [], profile="editor")
    asyncio.run(session.run("parent: hello"))
    session.close()
    assert not tree.offered["parent"] & {"spawn_agent", "agent_status", "cancel_agent"}


@pytest.mark.parametrize(
    ("args", "needle"),
    [({"id": "sub-9"}, "No sub-agent 'sub-9'"), ({"id": None, "wait": False}, "No sub-agents yet")],
)
def test_status_of_unknown_sub_agents_is_clear(workspace: Path, args: dict[str, Any], needle: str) -> None:
    tree = Tree({"parent": [call("agent_status", **args), answer("ok")]})
    events: list[Event] = []
    session = session_for(workspace, tree, events)
    asyncio.run(session.run("parent: ask"))
    session.close()
    status = results(events, "agent_status")[0]
    assert needle in str(status.error if not status.ok else status.result)


def test_spawn_brings_a_huge_max_steps_down_but_still_refuses_a_level_above_3() -> None:
    """A step budget above the ceiling is the ceiling; a level is a permission, so asking for more is an error."""
    from chrysalis.capabilities.subagents.agents import SpawnArgs

    assert SpawnArgs.model_validate({"task": "t", "max_steps": 10**6}).max_steps == 100
    assert SpawnArgs.model_validate({"task": "t"}).max_steps is None
    with pytest.raises(ValueError, match="less than or equal to 3"):
        SpawnArgs.model_validate({"task": "t", "level": 5})
