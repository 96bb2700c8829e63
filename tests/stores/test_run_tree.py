"""Undo of a whole run: the runs it started are found through their ``start`` events and undone with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.errors import UsageError
from chrysalis.stores import Stores
from chrysalis.stores.run_tree import find_tree, undo_tree


def start(stores: Stores, run_id: str, parent: str | None = None, task: str = "a task") -> None:
    """What ``AgentSession.emit`` records when a run (a sub-agent's, a leaf's: ``parent``) starts."""
    stores.traces.record(run_id, {"type": "start", "task": task, "parent_run_id": parent})


def write(stores: Stores, run_id: str, workspace: Path, name: str, text: str) -> None:
    """A file tool of ``run_id`` writing ``name``: checkpoint first, as the gate does."""
    stores.checkpoints.snapshot(run_id, workspace, Path(name))
    (workspace / name).write_text(text)


def undo(stores: Stores, workspace: Path, run_id: str | None = None) -> tuple[str, tuple[str, ...]]:
    report = undo_tree(stores.db, stores.checkpoints, workspace, run_id)
    return report.run_id, report.runs


def test_undo_takes_back_the_latest_top_run_and_every_run_below_it(stores: Stores, workspace: Path) -> None:
    (workspace / "old.txt").write_text("before old")
    (workspace / "shared.py").write_text("original\n")
    start(stores, "old")
    write(stores, "old", workspace, "old.txt", "by old")
    start(stores, "plan", task="decompose: build it")  # a decomposition's own run: changes nothing itself
    start(stores, "leaf-1", parent="plan")
    start(stores, "leaf-2", parent="plan")
    start(stores, "sub", parent="leaf-2")  # a sub-agent of a leaf: two levels down
    write(stores, "leaf-1", workspace, "a.txt", "made by leaf 1")
    write(stores, "leaf-2", workspace, "shared.py", "changed by leaf 2\n")
    (workspace / "deep").mkdir()  # the user's folder: it stays
    write(stores, "sub", workspace, "deep/b.txt", "made by the sub-agent")

    assert undo(stores, workspace) == ("plan", ("sub", "leaf-2", "leaf-1"))  # newest first

    assert sorted(p.name for p in workspace.iterdir()) == ["deep", "old.txt", "shared.py"]
    assert (workspace / "shared.py").read_text() == "original\n" and list((workspace / "deep").iterdir()) == []
    assert (workspace / "old.txt").read_text() == "by old"  # an earlier top run is the next undo's
    assert undo(stores, workspace) == ("old", ("old",))
    assert (workspace / "old.txt").read_text() == "before old"


@pytest.mark.parametrize("first", ["parent", "child"])
def test_a_file_changed_by_parent_and_child_gets_its_state_from_before_the_parent(
    stores: Stores, workspace: Path, first: str
) -> None:
    target = workspace / "calc.py"
    target.write_text("original")
    start(stores, "parent")
    start(stores, "child", parent="parent")
    write(stores, "parent", workspace, "notes.md", "the parent starts")  # the parent's run is the older one
    later = "child" if first == "parent" else "parent"
    write(stores, first, workspace, "calc.py", f"by the {first}")
    write(stores, later, workspace, "calc.py", f"by the {later} after the {first}")

    undo(stores, workspace)

    assert target.read_text() == "original" and not (workspace / "notes.md").exists()


def test_undo_of_a_middle_run_takes_back_it_and_its_children_only(stores: Stores, workspace: Path) -> None:
    start(stores, "top")
    start(stores, "middle", parent="top")
    start(stores, "leaf", parent="middle")
    start(stores, "sibling", parent="top")
    for run_id in ("top", "middle", "leaf", "sibling"):
        write(stores, run_id, workspace, f"{run_id}.txt", run_id)

    assert undo(stores, workspace, "middle") == ("middle", ("leaf", "middle"))

    assert sorted(p.name for p in workspace.iterdir()) == ["sibling.txt", "top.txt"]
    assert undo(stores, workspace) == ("top", ("sibling", "top"))  # the rest of the tree, once
    assert list(workspace.iterdir()) == []
    with pytest.raises(UsageError, match=r"'top' .* was already undone"):
        undo(stores, workspace, "top")


def test_the_tree_lists_parents_before_children_and_changes_nothing(stores: Stores, workspace: Path) -> None:
    start(stores, "plan", task="decompose: build the report")
    start(stores, "leaf-a", parent="plan", task="write a.txt")
    start(stores, "leaf-b", parent="plan", task="write b.txt")
    start(stores, "leaf-a-sub", parent="leaf-a", task="check a.txt")
    for run_id in ("leaf-a", "leaf-b", "leaf-a-sub"):
        write(stores, run_id, workspace, f"{run_id}.txt", run_id)

    tree = find_tree(stores.db, stores.checkpoints, workspace, None)

    shape = [("  " * run.depth + run.run_id, run.task, run.changed) for run in tree.runs]
    assert shape == [
        ("plan", "decompose: build the report", False),
        ("  leaf-a", "write a.txt", True),
        ("    leaf-a-sub", "check a.txt", True),
        ("  leaf-b", "write b.txt", True),
    ]
    assert tree.undoable == ("leaf-a-sub", "leaf-b", "leaf-a")
    assert len(list(workspace.iterdir())) == 3 and not any(run.undone for run in stores.checkpoints.runs(workspace))


def test_an_unknown_run_names_the_id_and_the_runs_that_can_be_undone(stores: Stores, workspace: Path) -> None:
    start(stores, "plan")
    start(stores, "leaf", parent="plan")
    write(stores, "leaf", workspace, "a.txt", "x")
    with pytest.raises(UsageError, match=r"Unknown run 'nope'.* newest first: plan\. `chrysalis undo --list`"):
        undo(stores, workspace, "nope")
    start(stores, "elsewhere")  # known to the traces, but it changed nothing here: as before
    with pytest.raises(UsageError, match=r"Nothing to undo for run 'elsewhere'.*changed no files here"):
        undo(stores, workspace, "elsewhere")
    assert (workspace / "a.txt").read_text() == "x"


def test_runs_without_start_events_are_undone_one_at_a_time_as_before(stores: Stores, workspace: Path) -> None:
    write(stores, "run-1", workspace, "one.txt", "1")
    write(stores, "run-2", workspace, "two.txt", "2")
    assert undo(stores, workspace) == ("run-2", ("run-2",))
    assert [p.name for p in workspace.iterdir()] == ["one.txt"]


def test_files_the_user_changed_since_are_restored_as_undo_of_one_run_does(stores: Stores, workspace: Path) -> None:
    (workspace / "calc.py").write_text("original")
    start(stores, "top")
    start(stores, "child", parent="top")
    write(stores, "child", workspace, "calc.py", "by the child")
    (workspace / "calc.py").write_text("edited by the user after the run")
    (workspace / "mine.txt").write_text("never touched by a run")

    undo(stores, workspace)

    assert (workspace / "calc.py").read_text() == "original"
    assert (workspace / "mine.txt").read_text() == "never touched by a run"


def test_commands_of_parent_and_child_are_undone_together_with_the_earliest_state(
    stores: Stores, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("original\n")
    (workspace / "keep.txt").write_text("keep\n")
    start(stores, "parent")
    start(stores, "child", parent="parent")
    with stores.checkpoints.around_command("child", workspace, "shell"):  # the child's command comes first
        (workspace / "calc.py").write_text("by the child's command\n")
        (workspace / "keep.txt").unlink()
    with stores.checkpoints.around_command("parent", workspace, "shell"):
        (workspace / "calc.py").write_text("by the parent's command\n")
        (workspace / "made.txt").write_text("made\n")
    write(stores, "child", workspace, "calc.py", "by the child's file tool\n")

    tree = find_tree(stores.db, stores.checkpoints, workspace, None)
    assert len(stores.checkpoints.changed(workspace, tree.undoable)) == 3
    undo(stores, workspace)

    assert sorted(p.name for p in workspace.iterdir()) == ["calc.py", "keep.txt"]
    assert (workspace / "calc.py").read_text() == "original\n" and (workspace / "keep.txt").read_text() == "keep\n"
