"""Writes that would break a Python file are refused, with the line, and the file is left alone."""

from __future__ import annotations

from pathlib import Path

from chrysalis.tools.base import ToolContext
from chrysalis.tools.files import edit_file, write_file
from chrysalis.tools.patch import apply_patch
from tests.helpers import WriteLog

CALC = 'def subtract(a, b):\n    """Return a minus b."""\n    return a + b\n'


def test_an_edit_that_breaks_the_indentation_is_refused_and_nothing_is_written(
    ws: Path, ctx: ToolContext, writes: WriteLog
) -> None:
    (ws / "calc.py").write_text(CALC)
    result = edit_file(
        {"path": "calc.py", "old_text": "def subtract(a, b):", "new_text": "def subtract(a, b): return a - b"}, ctx
    )
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith(
        "Not written: calc.py would not be valid Python after this change (IndentationError: unexpected indent, "
        "line 2). It would read:\n"
        "   1| def subtract(a, b): return a - b\n"
        '   2|     """Return a minus b."""\n'
        "   3|     return a + b\n"
        "calc.py is unchanged."
    )  # the model sees what its edit would do, and the line it should have changed
    assert (ws / "calc.py").read_text() == CALC
    assert writes.calls == []  # not even checkpointed: nothing changed


def test_a_good_edit_still_applies(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text(CALC)
    assert edit_file({"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}, ctx).ok


def test_a_file_that_was_already_broken_may_be_edited(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text("def f(:\n    pass\n")
    assert edit_file({"path": "calc.py", "old_text": "pass", "new_text": "return 1"}, ctx).ok


def test_only_python_files_are_checked(ws: Path, ctx: ToolContext) -> None:
    assert write_file({"path": "notes.txt", "content": "def f(:\n"}, ctx).ok


def test_a_new_python_file_must_parse(ws: Path, ctx: ToolContext) -> None:
    result = write_file({"path": "new.py", "content": "if x\n    y = 1\n"}, ctx)
    assert not result.ok and "SyntaxError" in (result.error or "")
    assert not (ws / "new.py").exists()


def test_a_patch_that_breaks_a_file_is_refused_whole(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text(CALC)
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -3 +3 @@\n-    return a + b\n+  return a - b\n"
    result = apply_patch({"patch": patch}, ctx)
    assert not result.ok and "IndentationError" in (result.error or "")
    assert (ws / "calc.py").read_text() == CALC
