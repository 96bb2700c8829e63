"""Undo after a decomposition: what the model wrote into a leaf cannot reach the terminal, nor another workspace.

A decomposition's leaves are tasks the planner model wrote, and ``chrysalis undo --list`` prints them; the
leaves share the parent's run tree but undo works per workspace. Each case builds the stores as the runs
leave them (``start`` events with ``parent_run_id``, checkpoints before each write), then runs the CLI.
"""

from __future__ import annotations

from pathlib import Path

from chrysalis.stores import Stores
from tests.helpers import chrysalis


def record_run(stores: Stores, run_id: str, parent: str | None, task: str) -> None:
    stores.traces.record(run_id, {"type": "start", "task": task, "parent_run_id": parent})


def test_undo_list_after_a_decomposition_prints_no_escape_sequence_from_a_leaf_task(
    chrysalis_home: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    hostile = "write a.txt\n\x1b[2J\x1b]0;pwned\x07fake-run  9 file(s)  \x1b[31mall clear" + "x" * 200
    with Stores.open(chrysalis_home) as stores:
        record_run(stores, "plan", None, "split the work")
        record_run(stores, "leaf", "plan", hostile)
        stores.checkpoints.snapshot("leaf", ws, Path("a.txt"))
    (ws / "a.txt").write_text("made by the leaf")

    listed = chrysalis("undo", "--list", "--workspace", str(ws))

    assert listed.returncode == 0, listed.stderr
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("plan  0 file(s)") and lines[1].startswith(
        "  leaf  1 file(s)  write a.txt ?[2J?]0;pwned?fake-run"
    )
    assert len(lines) == 3 and len(lines[1]) <= len("  leaf  1 file(s)  ") + 60  # one line per run, cut short
    assert (ws / "a.txt").read_text() == "made by the leaf"


def test_undo_after_a_decomposition_leaves_another_workspace_alone(chrysalis_home: Path, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    with Stores.open(chrysalis_home) as stores:
        record_run(stores, "plan", None, "split the work")
        for leaf, ws in (("leaf-here", here), ("leaf-there", there)):
            record_run(stores, leaf, "plan", f"write in {ws.name}")
            stores.checkpoints.snapshot(leaf, ws, Path("out.txt"))
            (ws / "out.txt").write_text(leaf)

    undo = chrysalis("undo", "--workspace", str(here))

    assert undo.returncode == 0, undo.stderr
    assert not (here / "out.txt").exists() and (there / "out.txt").read_text() == "leaf-there"
    assert "undid 1 file(s) of run plan and 1 run(s) it started: leaf-here" in " ".join(undo.stdout.split())
