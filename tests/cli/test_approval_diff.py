"""The terminal's approval prompt shows the diff a file-changing call would make, before it is made."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from chrysalis.agent.session import AgentSession
from chrysalis.cli.approval import MAX_DIFF_LINES, terminal_approver
from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.tools.base import ToolContext
from chrysalis.tools.files import edit_file, write_file
from chrysalis.tools.patch import apply_patch

BUG = "    return a + b\n"
FIX = "    return a - b\n"
PATCH = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def subtract(a, b):\n-    return a + b\n+    return a - b\n"


def ask_once(
    workspace: Path, tool_name: str, args: dict[str, Any], *, answer: bool = True, color: bool = False
) -> tuple[bool, str, list[str]]:
    """Run the terminal approver with a fake answer: what it returned, what it printed, the questions put."""
    out = io.StringIO()
    console = Console(
        file=out, width=200, highlight=False, force_terminal=color, color_system="standard" if color else None
    )
    questions: list[str] = []

    def ask(question: str) -> bool:
        questions.append(question)
        return answer

    approver = terminal_approver(lambda: workspace, console=console, ask=ask)
    assert approver is not None

    async def call() -> bool:
        assert approver is not None
        return await approver(tool_name, args, "Writing files needs approval at level 2.")

    approved = asyncio.run(call())
    return approved, out.getvalue(), questions


def test_an_edit_shows_its_diff_before_the_question_and_changes_nothing(workspace: Path) -> None:
    approved, shown, questions = ask_once(workspace, "edit_file", {"path": "calc.py", "old_text": BUG, "new_text": FIX})
    assert approved is True and questions == ["  Allow?"]
    lines = shown.splitlines()
    assert lines[:2] == ["Writing files needs approval at level 2.", "  edit_file(path='calc.py')"]
    assert "  1 file(s), +1 -1" in lines
    assert lines[lines.index("  --- a/calc.py") :] == [
        "  --- a/calc.py",
        "  +++ b/calc.py",
        "  @@ -1,2 +1,2 @@",
        "   def subtract(a, b):",
        "  -    return a + b",
        "  +    return a - b",
    ]
    assert (workspace / "calc.py").read_text().endswith(BUG)  # shown, not applied


def test_added_lines_are_green_and_removed_ones_red(workspace: Path) -> None:
    _, shown, _ = ask_once(workspace, "edit_file", {"path": "calc.py", "old_text": BUG, "new_text": FIX}, color=True)
    assert "\x1b[32m  +    return a - b" in shown and "\x1b[31m  -    return a + b" in shown


def test_a_new_file_shows_as_all_added(workspace: Path) -> None:
    _, shown, _ = ask_once(workspace, "write_file", {"path": "pkg/new.py", "content": "A = 1\nB = 2\n"})
    assert "  --- /dev/null\n  +++ b/pkg/new.py\n  @@ -0,0 +1,2 @@\n  +A = 1\n  +B = 2\n" in shown
    assert not (workspace / "pkg").exists()


def test_a_huge_diff_is_cut_and_says_how_much_was_left_out(workspace: Path) -> None:
    content = "".join(f"line {n}\n" for n in range(500))
    _, shown, _ = ask_once(workspace, "write_file", {"path": "big.txt", "content": content})
    diff_lines = 3 + 500  # ---, +++, @@, then every line added
    assert f"  … {diff_lines - MAX_DIFF_LINES} more diff line(s) not shown" in shown
    assert "+line 76\n" in shown and "line 77" not in shown and "+500 -0" in shown


def test_when_the_diff_cannot_be_worked_out_one_line_says_why_and_the_question_is_still_put(workspace: Path) -> None:
    args = {"path": "calc.py", "old_text": "    return a * b\n", "new_text": FIX}
    approved, shown, questions = ask_once(workspace, "edit_file", args, answer=False)
    assert approved is False and questions == ["  Allow?"]
    [why] = [line for line in shown.splitlines() if line.startswith("  no diff: ")]
    assert (
        why == "  no diff: old_text was not found in calc.py (0 matches); it must match the file exactly, "
        "including indentation."
    )
    assert "old_text='    return a * b\\n'" in shown  # the call is shown in full, since no diff stands for it


def test_a_patch_shows_every_file_it_touches(workspace: Path) -> None:
    patch = PATCH + "--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+fixed\n"
    _, shown, _ = ask_once(workspace, "apply_patch", {"patch": patch})
    assert "  apply_patch()" in shown and "2 file(s), +2 -1" in shown
    assert "  -    return a + b\n  +    return a - b\n" in shown and "  --- /dev/null\n  +++ b/NOTES.md\n" in shown


def test_control_characters_a_model_wrote_are_shown_escaped_not_sent_to_the_terminal(workspace: Path) -> None:
    _, shown, _ = ask_once(workspace, "write_file", {"path": "x.txt", "content": "ok\x1b[2J\u202enot\n"})
    assert "\x1b" not in shown and "+ok\\x1b[2J\\u202enot" in shown


def test_a_call_that_changes_no_file_is_shown_as_before(workspace: Path) -> None:
    _, shown, _ = ask_once(workspace, "shell", {"command": "rm -rf build"})
    assert shown.splitlines()[1] == "  shell(command='rm -rf build')" and "---" not in shown


@pytest.mark.parametrize(
    ("spec", "args"),
    [
        (edit_file, {"path": "calc.py", "old_text": BUG, "new_text": FIX}),
        (write_file, {"path": "calc.py", "content": "def subtract(a, b):\n    return a - b\n"}),
        (apply_patch, {"patch": PATCH}),
    ],
)
def test_the_preview_is_what_the_tool_then_writes(workspace: Path, spec: Any, args: dict[str, Any]) -> None:
    ctx = ToolContext(workspace=workspace)
    [change] = spec.preview_changes(args, ctx)
    assert change.old == (workspace / "calc.py").read_text()
    assert spec(args, ctx).ok
    assert change.new == (workspace / "calc.py").read_text()


def test_the_diff_is_shown_when_a_run_asks(workspace: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    approver = terminal_approver(lambda: workspace, console=console, ask=lambda _question: True)
    settings = load_settings({"workspace": workspace, "level": 2})
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("ok")])
    asyncio.run(AgentSession(settings, model=script.model(), approver=approver).run("fix it"))
    assert "  -    return a + b\n  +    return a - b\n" in out.getvalue()
    assert (workspace / "calc.py").read_text().endswith(FIX)


def test_without_a_terminal_nobody_is_asked(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO())
    assert terminal_approver(lambda: workspace) is None


def test_overwriting_a_binary_file_says_what_it_replaces(workspace: Path) -> None:
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(90))
    approved, shown, questions = ask_once(workspace, "write_file", {"path": "logo.png", "content": "a\nb\n"})
    assert approved is True and questions == ["  Allow?"]
    assert "  no diff: 'logo.png' is a binary file (100 bytes); this write replaces it with 2 lines of text." in shown
