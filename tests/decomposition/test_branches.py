"""Branches of a workspace and the three-way merge of their edits: real folders, real git merge-file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chrysalis.decomposition.branches import Branch, FileChange, has_markers, merge
from chrysalis.stores.shadow import ShadowRepo


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "logo.bin").write_bytes(b"\0\1\2")
    (root / ".gitignore").write_text(".venv/\n")
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "dep.py").write_text("DEP = 1\n")
    return root


def branch_of(project: Path, label: str = "n2") -> Branch:
    return Branch(ShadowRepo(project.parent / "shadow", project), label)


def test_a_branch_copies_the_files_links_ignored_folders_and_sees_only_its_own_edits(project: Path) -> None:
    branch = branch_of(project)
    try:
        copy = branch.path
        assert (copy / "pkg" / "calc.py").read_text() == (project / "pkg" / "calc.py").read_text()
        assert os.access(copy / "run.sh", os.X_OK) and (copy / "logo.bin").read_bytes() == b"\0\1\2"
        assert (copy / ".venv").is_symlink() and (copy / ".venv" / "lib" / "dep.py").read_text() == "DEP = 1\n"
        assert branch.changes() == []

        (copy / "pkg" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
        (copy / "notes.txt").write_text("new\n")
        (copy / "run.sh").unlink()
        changes = {change.path: change for change in branch.changes()}
        assert set(changes) == {"pkg/calc.py", "notes.txt", "run.sh"}
        assert changes["notes.txt"].base is None and changes["notes.txt"].after == b"new\n"
        assert changes["run.sh"].after is None and changes["run.sh"].base == b"#!/bin/sh\necho hi\n"
        assert (project / "pkg" / "calc.py").read_text().endswith("return a - b\n")  # the source is untouched
    finally:
        branch.discard()
    assert not branch.path.exists() and (project / ".venv" / "lib" / "dep.py").exists()


def test_edits_to_different_lines_of_one_file_combine(project: Path) -> None:
    branch = branch_of(project)
    calc = branch.path / "pkg" / "calc.py"
    calc.write_text(calc.read_text().replace("return a + b", "return a + b  # sum"))
    changes = branch.changes()
    ours = project / "pkg" / "calc.py"
    ours.write_text(ours.read_text().replace("return a - b", "return a - b  # difference"))
    written: list[str] = []

    report = merge(project, changes, "n2", before_write=written.append)

    branch.discard()
    assert report.applied == ["pkg/calc.py"] and report.conflicts == [] and written == ["pkg/calc.py"]
    assert "# sum" in ours.read_text() and "# difference" in ours.read_text()


def test_edits_to_the_same_lines_are_a_conflict_with_both_sides_kept(project: Path) -> None:
    branch = branch_of(project)
    (branch.path / "pkg" / "calc.py").write_text(
        (project / "pkg" / "calc.py").read_text().replace("a + b", "sum((a, b))")
    )
    changes = branch.changes()
    ours = project / "pkg" / "calc.py"
    ours.write_text(ours.read_text().replace("a + b", "b + a"))

    report = merge(project, changes, "n2")

    branch.discard()
    merged = ours.read_bytes()
    assert [(c.path, c.kind, c.label) for c in report.conflicts] == [("pkg/calc.py", "lines", "n2")]
    assert has_markers(merged)
    assert b"<<<<<<< workspace\n    return b + a\n=======\n    return sum((a, b))\n>>>>>>> n2\n" in merged
    assert b"return a - b" in merged  # the lines nobody changed are still there


def test_a_file_changed_on_one_side_and_deleted_on_the_other_keeps_the_change(project: Path) -> None:
    (project / "notes.txt").write_text("v1\n")
    branch = branch_of(project)
    (branch.path / "notes.txt").unlink()
    changes = branch.changes()
    (project / "notes.txt").write_text("v2\n")

    report = merge(project, changes, "n3")

    branch.discard()
    assert [c.kind for c in report.conflicts] == ["deleted"] and (project / "notes.txt").read_text() == "v2\n"


def test_a_binary_file_changed_on_both_sides_keeps_the_workspaces_and_writes_the_branchs_beside_it(
    project: Path,
) -> None:
    branch = branch_of(project)
    (branch.path / "logo.bin").write_bytes(b"\0theirs")
    changes = branch.changes()
    (project / "logo.bin").write_bytes(b"\0ours")

    report = merge(project, changes, "n4")

    branch.discard()
    assert [c.kind for c in report.conflicts] == ["binary"]
    assert (project / "logo.bin").read_bytes() == b"\0ours" and (project / "logo.bin.n4").read_bytes() == b"\0theirs"


def test_a_new_file_keeps_its_mode_and_a_change_already_there_is_not_written_again(project: Path) -> None:
    change = FileChange("bin/tool", None, b"#!/bin/sh\n", "100755")
    written: list[str] = []
    assert merge(project, [change], "n5", before_write=written.append).applied == ["bin/tool"]
    assert os.access(project / "bin" / "tool", os.X_OK)
    assert merge(project, [change], "n5", before_write=written.append).applied == []
    assert written == ["bin/tool"]


def test_has_markers_knows_a_resolved_file() -> None:
    assert not has_markers(b"x = 1\n# ======= is not a marker\n")
    assert has_markers(b"<<<<<<< workspace\nx = 1\n=======\nx = 2\n>>>>>>> n2\n")
