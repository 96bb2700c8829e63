from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chrysalis.errors import UsageError
from chrysalis.stores import CheckpointTooLarge, Stores
from chrysalis.stores import checkpoints as checkpoints_module
from chrysalis.stores.db import MIGRATIONS


def test_undo_restores_modified_files_and_deletes_created_ones(stores: Stores, workspace: Path) -> None:
    kept = workspace / "calc.py"
    kept.write_bytes(b"def add(a, b):\n    return a + b\n")
    kept.chmod(0o755)
    created = workspace / "new" / "dir" / "notes.md"

    stores.checkpoints.snapshot("run-1", workspace, Path("calc.py"))
    kept.write_bytes(b"broken")
    kept.chmod(0o644)
    stores.checkpoints.snapshot("run-1", workspace, created)
    created.parent.mkdir(parents=True)
    created.write_text("made by the agent")

    restored = stores.checkpoints.undo(workspace).restored

    assert sorted(restored) == sorted([kept, created])
    assert kept.read_bytes() == b"def add(a, b):\n    return a + b\n"
    assert kept.stat().st_mode & 0o777 == 0o755
    assert not created.exists()
    assert not (workspace / "new").exists()  # the folders the run made for the file go too
    assert [p.name for p in workspace.iterdir() if p.name.endswith(".undo")] == []


def test_undo_keeps_folders_that_existed_before_the_run(stores: Stores, workspace: Path) -> None:
    (workspace / "docs").mkdir()  # empty, but the user's
    created = workspace / "docs" / "api" / "v1" / "index.md"
    stores.checkpoints.snapshot("run-1", workspace, created)
    created.parent.mkdir(parents=True)
    created.write_text("made by the agent")
    stores.checkpoints.undo(workspace)
    assert (workspace / "docs").is_dir() and list((workspace / "docs").iterdir()) == []


def test_undo_removes_a_created_folder_only_once_it_is_empty(stores: Stores, workspace: Path) -> None:
    first, second = workspace / "pkg" / "a.py", workspace / "pkg" / "sub" / "b.py"
    for path in (first, second):
        stores.checkpoints.snapshot("run-1", workspace, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (workspace / "pkg" / "mine.txt").write_text("written by the user during the run")
    stores.checkpoints.undo(workspace)
    assert not first.exists() and not second.exists() and not (workspace / "pkg" / "sub").exists()
    assert (workspace / "pkg" / "mine.txt").read_text() == "written by the user during the run"


def test_only_the_first_snapshot_of_a_path_in_a_run_counts(stores: Stores, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("original")
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("first edit")
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("second edit")
    stores.checkpoints.undo(workspace, "run-1")
    assert target.read_text() == "original"


def test_first_snapshot_of_a_created_file_wins_over_later_ones(stores: Stores, workspace: Path) -> None:
    target = workspace / "fresh.txt"
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("v1")
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("v2")
    stores.checkpoints.undo(workspace)
    assert not target.exists()


def test_undo_defaults_to_the_latest_run_and_each_run_once(stores: Stores, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("v0")
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("v1")
    stores.checkpoints.snapshot("run-2", workspace, target)
    target.write_text("v2")

    assert stores.checkpoints.undo(workspace).restored == (target,)
    assert target.read_text() == "v1"
    assert stores.checkpoints.undo(workspace).restored == (target,)
    assert target.read_text() == "v0"
    with pytest.raises(UsageError, match="Nothing to undo"):
        stores.checkpoints.undo(workspace)


def test_nothing_to_undo_is_a_helpful_usage_error(stores: Stores, workspace: Path) -> None:
    with pytest.raises(UsageError) as info:
        stores.checkpoints.undo(workspace)
    assert "Nothing to undo" in str(info.value)
    assert str(workspace.resolve()) in str(info.value)
    assert info.value.exit_code == 2


def test_unknown_or_already_undone_run_is_a_usage_error(stores: Stores, workspace: Path) -> None:
    stores.checkpoints.snapshot("run-1", workspace, workspace / "x.txt")
    with pytest.raises(UsageError, match=r"'run-9'.*changed no files"):
        stores.checkpoints.undo(workspace, "run-9")
    stores.checkpoints.undo(workspace, "run-1")
    with pytest.raises(UsageError, match="already undone"):
        stores.checkpoints.undo(workspace, "run-1")


def test_runs_are_per_workspace(stores: Stores, workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    stores.checkpoints.snapshot("run-1", other, Path("x.txt"))
    with pytest.raises(UsageError, match="Nothing to undo"):
        stores.checkpoints.undo(workspace)
    assert stores.checkpoints.undo(other).restored == (other.resolve() / "x.txt",)


def test_runs_lists_files_and_undone_state(stores: Stores, workspace: Path) -> None:
    stores.checkpoints.snapshot("run-1", workspace, Path("b.txt"))
    stores.checkpoints.snapshot("run-1", workspace, Path("a.txt"))
    stores.checkpoints.snapshot("run-2", workspace, Path("c.txt"))
    stores.checkpoints.undo(workspace, "run-1")
    runs = stores.checkpoints.runs(workspace)
    root = workspace.resolve()
    assert [(r.run_id, r.files, r.undone) for r in runs] == [
        ("run-2", (root / "c.txt",), False),
        ("run-1", (root / "a.txt", root / "b.txt"), True),
    ]
    assert runs[0].created_at >= runs[1].created_at
    assert stores.checkpoints.runs(workspace / "nowhere") == []


def test_a_run_that_writes_again_after_undo_can_be_undone_again(stores: Stores, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("v0")
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("v1")
    stores.checkpoints.undo(workspace)
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_text("v2")
    stores.checkpoints.undo(workspace)
    assert target.read_text() == "v0"


def test_paths_outside_the_workspace_are_refused(stores: Stores, workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="outside the workspace"):
        stores.checkpoints.snapshot("run-1", workspace, Path("../escape.txt"))
    (workspace / "link").symlink_to(tmp_path)
    with pytest.raises(UsageError, match="outside the workspace"):
        stores.checkpoints.snapshot("run-1", workspace, Path("link/escape.txt"))


def test_folders_are_refused(stores: Stores, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    with pytest.raises(UsageError, match="is a folder"):
        stores.checkpoints.snapshot("run-1", workspace, Path("sub"))


def test_files_over_the_limit_are_refused_with_a_clear_message(
    stores: Stores, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints_module, "MAX_CHECKPOINT_BYTES", 1024)
    big = workspace / "big.bin"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(CheckpointTooLarge, match=r"big\.bin.*checkpoint limit.*could not be undone"):
        stores.checkpoints.snapshot("run-1", workspace, big)
    with pytest.raises(UsageError, match="Nothing to undo"):
        stores.checkpoints.undo(workspace)


def test_binary_content_round_trips(stores: Stores, workspace: Path) -> None:
    target = workspace / "blob.bin"
    payload = bytes(range(256)) * 64
    target.write_bytes(payload)
    stores.checkpoints.snapshot("run-1", workspace, target)
    target.write_bytes(b"")
    stores.checkpoints.undo(workspace)
    assert target.read_bytes() == payload


def test_a_checkpoint_written_before_the_new_dir_column_still_undoes(home: Path, workspace: Path) -> None:
    # A database from schema version 2: its rows have no new_dir, so undo deletes the file and keeps the folder.
    home.mkdir()
    conn = sqlite3.connect(home / "chrysalis.db")
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for statement in (s for migration in MIGRATIONS[:2] for s in migration):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version (version) VALUES (2)")
    key = str(workspace.resolve())
    conn.execute("INSERT INTO checkpoint_runs (run_id, workspace, created_at) VALUES ('old', ?, 1.0)", (key,))
    conn.execute(
        "INSERT INTO checkpoint_files (run_id, workspace, path, existed, content, mode, created_at)"
        " VALUES ('old', ?, 'made/it.txt', 0, NULL, NULL, 1.0)",
        (key,),
    )
    conn.commit()
    conn.close()
    (workspace / "made").mkdir()
    (workspace / "made" / "it.txt").write_text("agent")
    with Stores.open(home) as stores:
        assert stores.checkpoints.undo(workspace).restored == (workspace.resolve() / "made" / "it.txt",)
    assert not (workspace / "made" / "it.txt").exists() and (workspace / "made").is_dir()
