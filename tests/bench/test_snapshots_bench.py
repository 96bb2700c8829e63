"""bench/snapshots.py runs end to end on a tiny workspace (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import load_bench_module

snap = load_bench_module("snapshots")


def test_the_workspace_has_the_files_asked_for(tmp_path: Path) -> None:
    ws = snap.make_workspace(tmp_path, 120)
    assert len(list(ws.glob("pkg*/mod*.py"))) == 120
    assert (ws / "pkg0" / "mod0.py").read_text().startswith("value = 0\n")


def test_every_row_is_measured() -> None:
    result = snap.measure(files=60, repeats=1)
    expected = {
        "first_snapshot_ms",
        "git_status_ms",
        "command_ms",
        "command_with_snapshots_ms",
        "snapshot_unchanged_ms",
        "snapshot_one_file_changed_ms",
        "undo_one_command_ms",
        "overhead_per_command_ms",
        "overhead_vs_git_status",
        "overhead_vs_command",
        "snapshot_vs_git_status",
    }
    assert expected <= set(result) and result["files"] == 60
    assert all(isinstance(result[key], float) for key in expected)
