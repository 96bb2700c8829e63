"""`chrysalis undo` after a decomposition or a run with a sub-agent: the whole tree comes back, in real processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import assert_clean_error, chrysalis, scripted

ORIGINAL = "def add(a, b):\n    return a + b\n"


def conversation(body: dict[str, Any]) -> tuple[str, int, bool]:
    """The task of a request's conversation, how many answers the model gave so far, and if a tool just replied."""
    messages = body["messages"]
    task = next(str(m["content"]) for m in messages if m["role"] == "user")
    return task, sum(m["role"] == "assistant" for m in messages), messages[-1]["role"] == "tool"


def leaf_or_planner(body: dict[str, Any]) -> ScriptedReply | str:
    """The planner splits ``top`` in two; each leaf writes its file (and one edits calc.py), then answers."""
    if "final_result" in [t["function"]["name"] for t in body.get("tools", [])]:
        prompt = body["messages"][-1]["content"]
        plan = ["write a.txt", "write b.txt and fix calc.py"] if "task: top" in prompt else []
        return ScriptedReply.tool_call("final_result", {"atomic": not plan, "subtasks": plan})
    task, answers, _ = conversation(body)
    steps = [ScriptedReply.tool_call("write_file", {"path": task.split()[1], "content": f"made by {task!r}\n"})]
    if "calc.py" in task:
        edit = {"path": "calc.py", "old_text": "a + b", "new_text": "a * b"}
        steps.append(ScriptedReply.tool_call("edit_file", edit))
    return steps[answers] if answers < len(steps) else "done"


def decompose(workspace: Path) -> list[dict[str, Any]]:
    with ScriptedOpenAIServer(leaf_or_planner) as server:
        done = chrysalis(
            "decompose", "top", "--json", *scripted(server.base_url), "--level", "2", "--yes",
            "--workspace", str(workspace),
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_undo_after_a_decomposition_restores_every_file_of_every_leaf(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "calc.py").write_text(ORIGINAL)
    events = decompose(ws)
    top = events[0]["run_id"]
    leaves = [e["run_id"] for e in events if e["type"] == "start" and e.get("parent_run_id") == top]
    assert len(leaves) == 2 and (ws / "a.txt").exists() and (ws / "b.txt").exists()
    assert "a * b" in (ws / "calc.py").read_text()

    listed = chrysalis("undo", "--list", "--workspace", str(ws))

    # The leaves wrote in branches of their own; the decomposition merged their edits into the
    # workspace, checkpointing each file first: the whole tree's changes are the top run's.
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith(f"{top}  3 file(s)  top"), listed.stdout
    assert "would restore 3 file(s)" in listed.stdout and "Nothing was changed" in listed.stdout
    assert (ws / "a.txt").exists() and "a * b" in (ws / "calc.py").read_text()  # --list changed nothing

    undo = chrysalis("undo", "--workspace", str(ws))

    assert undo.returncode == 0, undo.stderr
    assert sorted(p.name for p in ws.iterdir()) == ["calc.py"] and (ws / "calc.py").read_text() == ORIGINAL
    assert f"undid 3 file(s) of run {top}" in " ".join(undo.stdout.split()), undo.stdout
    assert_clean_error(chrysalis("undo", "--workspace", str(ws)), 2, "Nothing to undo")


def parent_and_child(body: dict[str, Any]) -> ScriptedReply | str:
    """The parent edits calc.py, then a sub-agent edits it again and adds a file; the parent waits for it."""
    task, answers, _ = conversation(body)
    if task.startswith("child"):
        child = [
            ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": "a - b", "new_text": "a * b"}),
            ScriptedReply.tool_call("write_file", {"path": "child.txt", "content": "by the child\n"}),
        ]
        return child[answers] if answers < len(child) else "child done"
    parent = [
        ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
        ScriptedReply.tool_call("spawn_agent", {"task": "child: change calc.py again", "profile": "editor"}),
        ScriptedReply.tool_call("agent_status", {"id": "sub-1"}),
    ]
    return parent[answers] if answers < len(parent) else "parent done"


def test_undo_after_a_run_with_a_sub_agent_puts_a_file_both_changed_back_as_before_the_parent(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "calc.py").write_text(ORIGINAL)
    with ScriptedOpenAIServer(parent_and_child) as server:
        done = chrysalis(
            "run", "parent: change calc.py", *scripted(server.base_url), "--level", "2", "--yes",
            "--workspace", str(ws), env={"CHRYSALIS_PROFILE": "all"},  # sub-agent tools come with the all profile
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "a * b" in (ws / "calc.py").read_text() and (ws / "child.txt").exists()

    undo = chrysalis("undo", "--workspace", str(ws))

    assert undo.returncode == 0, undo.stderr
    assert (ws / "calc.py").read_text() == ORIGINAL and not (ws / "child.txt").exists()
    assert "and 1 run(s) it started" in undo.stdout


def test_undo_of_an_unknown_run_exits_2_naming_it_and_how_to_list_runs(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    assert_clean_error(
        chrysalis("undo", "--run", "no-such-run", "--workspace", str(ws)), 2, "'no-such-run'", "chrysalis undo --list"
    )
    assert_clean_error(chrysalis("undo", "--list", "--run", "no-such-run", "--workspace", str(ws)), 2, "no-such-run")
