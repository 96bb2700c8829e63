from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.files import edit_file, list_dir, read_file, write_file
from tests.helpers import WriteLog


def test_read_file_numbers_lines_and_gives_the_total(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.py").write_text("one\ntwo\nthree\n")
    result = read_file({"path": "a.py"}, ctx)
    assert result.ok
    assert result.result == "a.py (lines 1-3 of 3)\n   1| one\n   2| two\n   3| three"


def test_read_file_line_range_is_inclusive(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    result = read_file({"path": "a.py", "start_line": 12, "end_line": 13}, ctx)
    assert (
        result.result
        == "a.py (lines 12-13 of 20)\n  12| line 12\n  13| line 13\n[7 more lines: read_file with start_line=14]"
    )


def test_read_file_end_past_the_end_is_clamped(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.py").write_text("x\ny\n")
    assert read_file({"path": "a.py", "start_line": 2, "end_line": 99}, ctx).result == "a.py (lines 2-2 of 2)\n   2| y"


def test_read_file_pages_long_files(ws: Path, ctx: ToolContext) -> None:
    (ws / "big.txt").write_text("x\n" * 1000)
    result = read_file({"path": "big.txt"}, ctx)
    assert result.result.startswith("big.txt (lines 1-250 of 1000)")
    assert result.result.endswith("[750 more lines: read_file with start_line=251]")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"path": "a.py", "start_line": 5}, "start_line 5 is past the end of a.py, which has 2 lines"),
        ({"path": "a.py", "start_line": 2, "end_line": 1}, "end_line 1 is before start_line 2"),
        ({"path": "a.py", "start_line": "abc"}, "Bad arguments for read_file: start_line"),
        ({"path": "a.py", "start_line": 0}, "Bad arguments for read_file: start_line"),
        ({"start_line": 1}, "Bad arguments for read_file: path: Field required"),
        ({"path": "a.py", "colour": "red"}, "Bad arguments for read_file: colour"),
        ({"path": "missing.py"}, "'missing.py' does not exist"),
        ({"path": "."}, "is a directory; use list_dir"),
        ({"path": "../x"}, "leave the workspace"),
        ({"path": "/etc/passwd"}, "absolute path outside the workspace"),
        ({"path": "blob.bin"}, "is a binary file"),
    ],
)
def test_read_file_bad_inputs(ws: Path, ctx: ToolContext, args: dict[str, object], error: str) -> None:
    (ws / "a.py").write_text("x\ny\n")
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02")
    result = read_file(args, ctx)
    assert not result.ok
    assert error in (result.error or "")


def test_read_file_empty_file(ws: Path, ctx: ToolContext) -> None:
    (ws / "empty.py").write_text("")
    assert read_file({"path": "empty.py"}, ctx).result == "empty.py is empty (0 lines)."


def test_write_file_creates_parents_and_checkpoints_first(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    result = write_file({"path": "docs/new/plan.md", "content": "# Plan\n\nstep\n"}, ctx)
    assert result.ok, result.error
    assert result.result == "Created docs/new/plan.md (3 lines)."
    assert (ws / "docs/new/plan.md").read_text() == "# Plan\n\nstep\n"
    assert writes.calls == [(ws / "docs/new/plan.md", None)]


def test_write_file_overwrite_checkpoints_the_old_content(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "a.py").write_text("old\n")
    assert write_file({"path": "a.py", "content": "new\n"}, ctx).result == "Overwrote a.py (1 lines)."
    assert writes.calls == [(ws / "a.py", "old\n")]


def test_write_file_refuses_escapes_dirs_and_symlinks(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "d").mkdir()
    (ws / "real.py").write_text("x")
    (ws / "notes.md").symlink_to(ws / "real.py")
    assert "leave the workspace" in (write_file({"path": "../evil.py", "content": ""}, ctx).error or "")
    assert "outside the workspace" in (write_file({"path": "/tmp/evil.py", "content": ""}, ctx).error or "")
    assert "is a directory" in (write_file({"path": "d", "content": ""}, ctx).error or "")
    assert "symlink" in (write_file({"path": "notes.md", "content": "y"}, ctx).error or "")
    assert (ws / "real.py").read_text() == "x"
    assert writes.calls == []


def test_write_targets_are_workspace_relative() -> None:
    assert write_file.write_targets(write_file.args.model_validate({"path": "./docs/a.md", "content": ""})) == [
        "docs/a.md"
    ]
    assert edit_file.write_targets(
        edit_file.args.model_validate({"path": "tests/test_x.py", "old_text": "a", "new_text": "b"})
    ) == ["tests/test_x.py"]


def test_edit_file_replaces_exactly_once(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    result = edit_file({"path": "calc.py", "old_text": "return a + b", "new_text": "return a - b"}, ctx)
    assert result.ok, result.error
    assert (ws / "calc.py").read_text() == "def sub(a, b):\n    return a - b\n"
    assert result.result == "Edited calc.py: replaced 1 line(s) at line 2 with 1 line(s). Now:\n   2| return a - b"
    assert writes.calls == [(ws / "calc.py", "def sub(a, b):\n    return a + b\n")]


def test_edit_file_two_matches_says_how_many_and_where(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    result = edit_file({"path": "a.py", "old_text": "x = 1", "new_text": "x = 3"}, ctx)
    assert not result.ok
    assert result.error == (
        "old_text occurs 2 times in a.py: line 1, line 3; it must occur exactly once. "
        "Include the line above it in old_text (and the same line at the start of new_text).\n"
        "For the one at line 3, old_text:\ny = 2\nx = 1"
    )
    assert writes.calls == []
    assert (ws / "a.py").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_edit_file_made_again_is_refused_not_nested(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    """The 1.5B model repeated an edit that extends its old text; it left `if b in t if b in t if b in t`."""
    (ws / "a.py").write_text("def f(after, t):\n    return [b for b in after]\n")
    edit = {"path": "a.py", "old_text": "for b in after", "new_text": "for b in after if b in t"}
    assert edit_file(edit, ctx).ok
    again = edit_file(edit, ctx)
    assert not again.ok
    assert (again.error or "").startswith("new_text is already in a.py at line 2: this edit has been made")
    assert (ws / "a.py").read_text() == "def f(after, t):\n    return [b for b in after if b in t]\n"
    assert len(writes.calls) == 1


def test_edit_file_no_match_shows_the_closest_lines(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "a.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    result = edit_file({"path": "a.py", "old_text": "def g():\n  return 2", "new_text": "x"}, ctx)
    assert not result.ok
    error = result.error or ""
    assert "old_text was not found in a.py (0 matches)" in error
    assert "different indentation" in error
    assert "The closest lines are:\n   5| def g():\n   6|     return 2" in error
    assert writes.calls == []


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"path": "a.py", "old_text": "", "new_text": "x"}, "old_text is empty"),
        ({"path": "a.py", "old_text": "x", "new_text": "x"}, "the same"),
        ({"path": "nope.py", "old_text": "x", "new_text": "y"}, "does not exist"),
        ({"path": "a.py", "old_text": 3, "new_text": "y"}, "Bad arguments for edit_file: old_text"),
        ({"path": "../a.py", "old_text": "x", "new_text": "y"}, "leave the workspace"),
    ],
)
def test_edit_file_bad_inputs(ws: Path, ctx: ToolContext, args: dict[str, object], error: str) -> None:
    (ws / "a.py").write_text("x\n")
    result = edit_file(args, ctx)
    assert not result.ok
    assert error in (result.error or "")


def test_list_dir_marks_dirs_and_skips_noise(ws: Path, ctx: ToolContext) -> None:
    for rel in ["b.py", "a.txt", "src/m.py", "src/deep/n.py", ".git/HEAD", "__pycache__/c.pyc", "node_modules/x"]:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("")
    (ws / ".venv").mkdir()
    assert list_dir({}, ctx).result == "src/\na.txt\nb.py"
    assert list_dir({"path": "src", "depth": 2}, ctx).result == "src/deep/\nsrc/deep/n.py\nsrc/m.py"


def test_list_dir_shows_links_out_of_the_workspace_without_their_target(
    ws: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    (ws / "out").symlink_to(tmp_path)
    (ws / "a.py").write_text("")
    (ws / "src").mkdir()
    (ws / "src" / "m.py").write_text("")
    (ws / "alias.py").symlink_to(ws / "a.py")
    (ws / "lib").symlink_to(ws / "src")
    listing = list_dir({"depth": 2}, ctx).result
    assert listing == "src/\nsrc/m.py\na.py\nalias.py -> a.py\nlib/ -> src/\nout -> outside the workspace"


def test_edit_file_keeps_windows_line_endings(ws: Path, ctx: ToolContext) -> None:
    (ws / "w.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    assert edit_file({"path": "w.py", "old_text": "a = 1\nb = 2", "new_text": "a = 1\nb = 3\nc = 4"}, ctx).ok
    assert (ws / "w.py").read_bytes() == b"a = 1\r\nb = 3\r\nc = 4\r\n"


def test_list_dir_caps_long_listings(ws: Path, ctx: ToolContext) -> None:
    for n in range(400):
        (ws / f"f{n:03}.txt").write_text("")
    lines = list_dir({}, ctx).result.splitlines()
    assert len(lines) == 301
    assert lines[-1] == "[... more than 300 entries; list a subfolder or use find]"


def test_list_dir_bad_inputs(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.py").write_text("")
    (ws / "empty").mkdir()
    assert "is a file" in (list_dir({"path": "a.py"}, ctx).error or "")
    assert "does not exist" in (list_dir({"path": "nope"}, ctx).error or "")
    assert "leave the workspace" in (list_dir({"path": ".."}, ctx).error or "")
    assert "depth" in (list_dir({"depth": 0}, ctx).error or "")
    assert list_dir({"depth": 9}, ctx).result == list_dir({"depth": 4}, ctx).result  # the ceiling, not an error
    assert list_dir({"path": "empty"}, ctx).result == "empty/ is empty."
