from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext, ToolError
from chrysalis.tools.patch import apply_patch, parse_patch
from tests.helpers import WriteLog

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"

FIX_SUB = """\
--- a/calc.py
+++ b/calc.py
@@ -5,2 +5,2 @@
 def sub(a, b):
-    return a + b
+    return a - b
"""


def test_applies_a_simple_hunk(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "calc.py").write_text(CALC)
    result = apply_patch({"patch": FIX_SUB}, ctx)
    assert result.ok, result.error
    assert result.result == "Applied the patch: patched calc.py (1 hunk(s))."
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    assert writes.calls == [(ws / "calc.py", CALC)]


ADD_DOCSTRING = """\
--- a/calc.py
+++ b/calc.py
@@ -1,1 +1,2 @@
 def add(a, b):
+    \"\"\"The sum.\"\"\"
"""


def test_a_hunk_already_applied_is_refused_not_applied_twice(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "calc.py").write_text(CALC)
    assert apply_patch({"patch": ADD_DOCSTRING}, ctx).ok
    once = (ws / "calc.py").read_text()
    assert once.startswith('def add(a, b):\n    """The sum."""\n    return a + b\n')
    again = apply_patch({"patch": ADD_DOCSTRING}, ctx)  # its context still matches: it would add the line twice
    assert not again.ok and "has already been applied" in (again.error or "") and "at line 1" in (again.error or "")
    assert (ws / "calc.py").read_text() == once and len(writes.calls) == 1


def test_lines_added_before_the_context_are_seen_as_applied_too(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text("import math\n" + CALC)
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -2,1 +2,2 @@\n+# adds\n def add(a, b):\n"
    assert apply_patch({"patch": patch}, ctx).ok
    again = apply_patch({"patch": patch}, ctx)
    assert not again.ok and "already been applied" in (again.error or "") and "at line 2" in (again.error or "")


def test_a_context_that_recurs_elsewhere_still_takes_the_hunk(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text(CALC)
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,3 @@\n def sub(a, b):\n+    # subtracts\n     return a + b\n"
    assert apply_patch({"patch": patch}, ctx).ok  # the first function has the same return line, not the new one
    assert "def sub(a, b):\n    # subtracts\n    return a + b\n" in (ws / "calc.py").read_text()


def test_wrong_line_numbers_and_counts_still_apply(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text(CALC)
    sloppy = FIX_SUB.replace("@@ -5,2 +5,2 @@", "@@ -1,9 +1,7 @@")
    assert apply_patch({"patch": sloppy}, ctx).ok
    assert (ws / "calc.py").read_text().endswith("def sub(a, b):\n    return a - b\n")


def test_multiple_files_and_a_new_file(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "calc.py").write_text(CALC)
    (ws / "README.md").write_text("# Calc\n")
    patch = (
        FIX_SUB
        + "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
        + "@@ -1 +1,2 @@\n # Calc\n+Adds and subtracts.\n"
        + "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+X = 1\n+Y = 2\n"
    )
    result = apply_patch({"patch": patch}, ctx)
    assert result.ok, result.error
    assert (ws / "README.md").read_text() == "# Calc\nAdds and subtracts.\n"
    assert (ws / "pkg/new.py").read_text() == "X = 1\nY = 2\n"
    assert writes.paths == [ws / "calc.py", ws / "README.md", ws / "pkg/new.py"]
    assert apply_patch.write_targets(apply_patch.args.model_validate({"patch": patch})) == [
        "calc.py",
        "README.md",
        "pkg/new.py",
    ]


def test_deleting_a_file(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "old.py").write_text("x = 1\n")
    result = apply_patch({"patch": "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n"}, ctx)
    assert result.ok, result.error
    assert not (ws / "old.py").exists()
    assert writes.calls == [(ws / "old.py", "x = 1\n")]


def test_all_or_nothing_names_the_failing_hunk(ws: Path, ctx: ToolContext, writes: WriteLog) -> None:
    (ws / "calc.py").write_text(CALC)
    (ws / "b.py").write_text("one\ntwo\n")
    patch = FIX_SUB + "--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n@@ -9 +9 @@\n-nine\n+9\n"
    result = apply_patch({"patch": patch}, ctx)
    assert not result.ok
    assert (result.error or "").startswith(
        "Hunk 2 of 2 for b.py (@@ -9 +9 @@) does not apply: these lines were not found in the file:\nnine\n"
    )
    assert "Nothing was changed" in (result.error or "")
    assert (ws / "calc.py").read_text() == CALC
    assert (ws / "b.py").read_text() == "one\ntwo\n"
    assert writes.calls == []


def test_trailing_whitespace_differences_are_tolerated(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.py").write_text("x = 1   \ny = 2\n")
    assert apply_patch({"patch": "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"}, ctx).ok
    assert (ws / "a.py").read_text() == "x = 1\ny = 3\n"


def test_no_newline_at_end_of_file_markers(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("a\nb")
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
    assert apply_patch({"patch": patch}, ctx).ok
    assert (ws / "a.txt").read_text() == "a\nc\n"
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-c\n+d\n\\ No newline at end of file\n"
    assert apply_patch({"patch": patch}, ctx).ok
    assert (ws / "a.txt").read_text() == "a\nd"


def test_crlf_files_keep_their_line_endings(ws: Path, ctx: ToolContext) -> None:
    (ws / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert apply_patch({"patch": "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"}, ctx).ok
    assert (ws / "w.txt").read_bytes() == b"a\r\nc\r\n"


@pytest.mark.parametrize(
    ("patch", "error"),
    [
        ("just some text", "This is not a unified diff"),
        ("@@ -1 +1 @@\n-a\n+b\n", "hunk (@@) before any"),
        ("--- /dev/null\n+++ /dev/null\n", "/dev/null on both sides"),
        ("--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "leave the workspace"),
        ("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "outside the workspace"),
        ("--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-a\n+b\n", "'missing.py' does not exist"),
        ("--- /dev/null\n+++ b/calc.py\n@@ -0,0 +1 @@\n+x\n", "already exists"),
        ("--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n ctx\n+x\n", "a new file has only '+'"),
        ("--- a/calc.py\n+++ b/other.py\n@@ -1 +1 @@\n-a\n+b\n", "Renaming files"),
        (FIX_SUB + FIX_SUB, "changes calc.py twice"),
    ],
)
def test_bad_patches(ws: Path, ctx: ToolContext, writes: WriteLog, patch: str, error: str) -> None:
    (ws / "calc.py").write_text(CALC)
    result = apply_patch({"patch": patch}, ctx)
    assert not result.ok
    assert error in (result.error or "")
    assert (ws / "calc.py").read_text() == CALC
    assert writes.calls == []


def test_patch_argument_must_be_a_string(ctx: ToolContext) -> None:
    assert "Bad arguments for apply_patch: patch" in (apply_patch({"patch": ["x"]}, ctx).error or "")


def test_write_targets_of_an_unparsable_patch_are_empty() -> None:
    assert apply_patch.write_targets(apply_patch.args.model_validate({"patch": "nonsense"})) == []


def test_parse_ignores_git_preamble_and_timestamps() -> None:
    text = (
        "diff --git a/x.py b/x.py\nindex 83db48f..bf269f4 100644\n"
        "--- a/x.py\t2024-01-01\n+++ b/x.py\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n"
    )
    [patch] = parse_patch(text)
    assert (patch.old_path, patch.new_path) == ("x.py", "x.py")
    assert (patch.hunks[0].old, patch.hunks[0].new) == (["a"], ["b"])
    with pytest.raises(ToolError):
        parse_patch("--- a/\n+++ b/\n")
