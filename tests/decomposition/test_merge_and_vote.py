"""Leaves that write run in branches; their edits merge as patches, conflicts go to a merge leaf; the vote op.

A scripted model (``FunctionModel``) plays the planner and every leaf: a leaf whose task is in
``edits`` writes that file on its first turn and then says it is done. Real folders, real git.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.decomposition.run import Decomposer, DecompositionResult
from chrysalis.events import Event, PlanNodeEvent, Start
from chrysalis.llm.decorrelated import VOTER_SEEDS
from chrysalis.stores import Stores
from chrysalis.stores.run_tree import undo_tree

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
ATOMIC: dict[str, Any] = {"atomic": True, "subtasks": []}
Edit = Callable[[str, int], tuple[str, str] | None]
"""A leaf's edit from its task and voter: (path, new content), or None to write nothing."""


def first_prompt(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return "".join(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))


class Scripted:
    """The planner splits by ``plans``; a leaf writes ``edit(task, voter)`` on its first turn, then is done."""

    def __init__(self, plans: dict[str, list[str]], edit: Edit) -> None:
        self.plans, self.edit = plans, edit
        self.leaves: list[tuple[str, int]] = []
        self.model = FunctionModel(self.respond, model_name="scripted")

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = first_prompt(messages)
        if info.output_tools:
            task = re.search(r"^task: (.*)$", prompt, re.MULTILINE)
            assert task is not None
            subtasks = self.plans.get(task[1])
            answer = {"atomic": False, "subtasks": subtasks} if subtasks else ATOMIC
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])
        voter = int((info.model_settings or {}).get("seed", 0)) // VOTER_SEEDS
        edit = self.edit(prompt, voter) if len(messages) == 1 else None
        if edit is None:
            return ModelResponse(parts=[TextPart(f"did {prompt[:40]}")])
        if len(messages) == 1 and (prompt, voter) not in self.leaves:
            self.leaves.append((prompt, voter))
        return ModelResponse(parts=[ToolCallPart("write_file", {"path": edit[0], "content": edit[1]})])


def decompose(workspace: Path, world: Scripted, task: str, **flags: Any) -> tuple[DecompositionResult, list[Event]]:
    events: list[Event] = []
    options = {"workspace": workspace, "level": 2, "mode": "code", "yes": True, "priority": "fast", **flags}
    session = AgentSession(load_settings(options), model=world.model, on_event=events.append)
    try:
        result = asyncio.run(Decomposer(session, concurrency=2).run(task))
    finally:
        session.close()
    return result, events


def final_nodes(events: list[Event]) -> dict[str, PlanNodeEvent]:
    last: dict[str, PlanNodeEvent] = {}
    for event in events:
        if isinstance(event, PlanNodeEvent):
            last[event.task] = event
    return last


def details(events: list[Event]) -> list[str]:
    return [e.detail for e in events if isinstance(e, PlanNodeEvent) and e.detail]


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    return root


def by_task(edits: dict[str, tuple[str, str]]) -> Edit:
    return lambda task, _voter: next((edit for name, edit in edits.items() if task.startswith(name)), None)


def test_two_leaves_edit_one_file_in_branches_and_both_edits_are_merged_and_undone_as_one(
    tmp_path: Path, chrysalis_home: Path
) -> None:
    workspace = project(tmp_path)
    world = Scripted(
        {"comment calc": ["comment add", "comment sub"]},
        by_task(
            {
                "comment add": ("calc.py", CALC.replace("a + b", "a + b  # the sum")),
                "comment sub": ("calc.py", CALC.replace("a - b", "a - b  # the difference")),
            }
        ),
    )

    result, events = decompose(workspace, world, "comment calc")

    assert result.success, details(events)
    assert (workspace / "calc.py").read_text() == CALC.replace("a + b", "a + b  # the sum").replace(
        "a - b", "a - b  # the difference"
    )
    leaf_workspaces = {e.workspace for e in events if isinstance(e, Start) and e.parent_run_id == result.run_id}
    assert len(leaf_workspaces) == 2 and str(workspace) not in leaf_workspaces  # each leaf had a branch
    assert not any(Path(w).exists() for w in leaf_workspaces)  # and the branches are gone once merged
    assert sum("merged" in d and "1 file(s)" in d for d in details(events)) == 2

    stores = Stores.open(chrysalis_home)
    try:
        report = undo_tree(stores.db, stores.checkpoints, workspace, None)
    finally:
        stores.close()
    assert report.run_id == result.run_id and (workspace / "calc.py").read_text() == CALC


def conflicting(resolution: str | None) -> Edit:
    """Two leaves change the same line; the merge leaf writes ``resolution`` (None: it writes nothing)."""
    edits = by_task(
        {
            "swap add": ("calc.py", CALC.replace("a + b", "b + a")),
            "sum add": ("calc.py", CALC.replace("a + b", "sum((a, b))")),
        }
    )

    def edit(task: str, voter: int) -> tuple[str, str] | None:
        if task.startswith("Resolve merge conflicts"):
            assert "calc.py" in task and "<<<<<<< workspace" in task
            return None if resolution is None else ("calc.py", resolution)
        return edits(task, voter)

    return edit


def test_a_conflict_between_two_leaves_is_resolved_by_a_merge_leaf_of_its_own(tmp_path: Path) -> None:
    workspace = project(tmp_path)
    resolved = CALC.replace("a + b", "sum((b, a))")
    world = Scripted({"rework add": ["swap add", "sum add"]}, conflicting(resolved))

    result, events = decompose(workspace, world, "rework add")

    assert result.success, details(events)
    assert (workspace / "calc.py").read_text() == resolved
    merge_node = next(n for n in final_nodes(events).values() if n.op == "merge")
    assert merge_node.status == "done" and merge_node.parent_id == result.tree.id
    assert any("1 in conflict" in d for d in details(events))


def test_a_conflict_left_unresolved_fails_the_plan_and_keeps_both_sides_in_the_file(tmp_path: Path) -> None:
    workspace = project(tmp_path)
    world = Scripted({"rework add": ["swap add", "sum add"]}, conflicting(None))

    result, events = decompose(workspace, world, "rework add")

    assert not result.success
    text = (workspace / "calc.py").read_text()
    assert "return b + a" in text and "return sum((a, b))" in text and "<<<<<<< workspace" in text
    merge_node = next(n for n in final_nodes(events).values() if n.op == "merge")
    assert merge_node.status == "failed" and "conflict markers left in calc.py" in merge_node.detail


def project_with_tests(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "settings.py").write_text("x = 0\n")
    (root / "tests" / "test_settings.py").write_text("from settings import x\n\n\ndef test_x():\n    assert x == 1\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return root


def test_the_vote_op_runs_voters_in_branches_the_tests_reject_the_wrong_ones_and_the_winners_edit_lands(
    tmp_path: Path,
) -> None:
    # ``accurate`` votes at level high: 5 voters, the first edit 3 of them make wins. Voters 1 and 3
    # write x = 2, which the project's tests reject (their runs fail); 0, 2 and 4 write x = 1.
    workspace = project_with_tests(tmp_path)

    def edit(task: str, voter: int) -> tuple[str, str]:
        return ("settings.py", "x = 2\n" if voter in (1, 3) else "x = 1\n")

    world = Scripted({}, edit)

    result, events = decompose(workspace, world, "set x in settings.py", priority="accurate")

    assert result.success, details(events)
    assert (workspace / "settings.py").read_text() == "x = 1\n"
    assert sorted(voter for _task, voter in world.leaves) == [0, 1, 2, 3, 4]
    leaf = final_nodes(events)["set x in settings.py"]
    assert leaf.op == "vote" and leaf.status == "done"
    assert "vote of 5 voters: edits 3, 2 failed; voter 0's edit wins (consensus)" in leaf.detail
    voters = {e.workspace for e in events if isinstance(e, Start) and e.parent_run_id == result.run_id}
    assert len(voters) == 5 and not any(Path(w).exists() for w in voters)  # a branch each, all deleted


def test_a_vote_whose_every_voter_fails_keeps_none_of_their_edits(tmp_path: Path) -> None:
    workspace = project_with_tests(tmp_path)
    world = Scripted({}, lambda _task, voter: ("settings.py", f"x = {voter + 2}\n"))

    result, events = decompose(workspace, world, "set x in settings.py", priority="accurate")

    assert not result.success
    assert (workspace / "settings.py").read_text() == "x = 0\n"
    leaf = final_nodes(events)["set x in settings.py"]
    assert leaf.status == "failed" and "every voter failed" in leaf.detail and "none of their edits" in leaf.detail


def test_a_node_rolled_back_during_execution_is_voted_when_the_priority_votes(tmp_path: Path) -> None:
    # ``best`` votes at medium: when both leaves fail (0 of 2 < 0.6) the node is rolled back, their
    # branches are dropped (their x = 2 and x = 3 never reach the workspace), and it runs as a vote.
    workspace = project_with_tests(tmp_path)
    edits = {"try two": "x = 2\n", "try three": "x = 3\n", "make the test pass": "x = 1\n"}
    world = Scripted(
        {"make the test pass": ["try two", "try three", "note it"]},
        lambda task, _voter: next((("settings.py", e) for name, e in edits.items() if task.startswith(name)), None),
    )

    result, events = decompose(workspace, world, "make the test pass", priority="best")

    assert result.success, details(events)
    assert (workspace / "settings.py").read_text() == "x = 1\n"
    assert any("diminishing-returns" in e and "during execution" in e for e in result.explosions)
    root = final_nodes(events)["make the test pass"]
    assert root.op == "vote" and root.status == "done" and "vote of 3 voters" in root.detail
    assert final_nodes(events)["note it"].status == "pruned"


def test_without_branches_the_leaves_share_the_workspace_as_before(tmp_path: Path, monkeypatch: Any) -> None:
    from chrysalis.decomposition import execute
    from chrysalis.stores.shadow import SnapshotUnavailable

    def no_git(*_args: Any) -> Any:
        raise SnapshotUnavailable("git is not installed (test)")

    monkeypatch.setattr(execute, "Branch", no_git)
    workspace = project(tmp_path)
    world = Scripted({"write notes": ["write a", "write b"]}, lambda task, _v: (f"{task[-1]}.txt", f"{task}\n"))

    result, events = decompose(workspace, world, "write notes")

    assert result.success, details(events)
    assert (workspace / "a.txt").read_text() == "write a\n" and (workspace / "b.txt").read_text() == "write b\n"
    assert any("share the workspace (no branches: git is not installed (test))" in d for d in details(events))
