"""The gated tools snapshot the workspace around every command that may change it, so undo covers commands."""

from __future__ import annotations

from pathlib import Path

from chrysalis.events import Event, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from tests.helpers import git, run_agent

ORIGINAL = "def add(a, b):\n    return a + b\n"
TASK = "change things"


def project(tmp_path: Path) -> Path:
    """A git repository with no tests (so no final check unless a test adds them)."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text(ORIGINAL)
    (root / "old.txt").write_text("old\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        git(root, *args)
    return root


def results(events: list[Event], name: str) -> list[ToolResultEvent]:
    return [e for e in events if isinstance(e, ToolResultEvent) and e.tool == name]


def test_undo_restores_what_shell_commands_and_a_commit_changed(tmp_path: Path, chrysalis_home: Path) -> None:
    ws = project(tmp_path)
    script = ScriptedModel(
        [
            tool("shell", command="sed -i 's/a + b/a - b/' calc.py && rm old.txt && echo new > new.txt"),
            tool("write_file", path="notes.md", content="by a file tool\n"),
            tool("git_commit", message="the agent's change"),
            final("done"),
        ]
    )
    _, events = run_agent(ws, script, TASK, level=3, yes=True)
    assert all(r.ok for r in results(events, "shell") + results(events, "git_commit")), events
    assert "a - b" in (ws / "calc.py").read_text()

    with Stores.open(chrysalis_home) as stores:
        report = stores.checkpoints.undo(ws)

    assert (ws / "calc.py").read_text() == ORIGINAL and (ws / "old.txt").read_text() == "old\n"
    assert not (ws / "new.txt").exists() and not (ws / "notes.md").exists()
    assert {p.name for p in report.restored} == {"calc.py", "old.txt", "new.txt", "notes.md"}
    assert report.moved_head and "stay in the history" in report.notes()[0]


def test_commands_in_the_read_only_sandbox_take_no_snapshot(tmp_path: Path, chrysalis_home: Path) -> None:
    ws = project(tmp_path)
    _, events = run_agent(ws, ScriptedModel([tool("shell", command="cat calc.py"), final("read it")]), TASK, level=1)
    assert len(results(events, "shell")) == 1
    assert not (chrysalis_home / "shadow").exists()


def test_a_command_that_cannot_be_snapshotted_is_not_run(tmp_path: Path, chrysalis_home: Path) -> None:
    ws = project(tmp_path)
    (chrysalis_home / "shadow").write_text("a file where the snapshot folder should be\n")
    _, events = run_agent(
        ws, ScriptedModel([tool("shell", command="echo ran > ran.txt"), final("tried")]), TASK, level=3, yes=True
    )
    [result] = results(events, "shell")
    assert not result.ok and result.error is not None and result.error.startswith("Not run: ")
    assert "snapshot store" in result.error
    assert not (ws / "ran.txt").exists()


def test_the_final_check_on_the_real_workspace_is_undone_too(tmp_path: Path, chrysalis_home: Path) -> None:
    ws = project(tmp_path)
    (ws / "tests").mkdir()
    (ws / "tests" / "test_calc.py").write_text(
        "from pathlib import Path\n\n\ndef test_writes():\n    Path('generated.txt').write_text('by the tests')\n"
    )
    script = ScriptedModel(
        [tool("write_file", path="calc.py", content="def add(a, b):\n    return b + a\n"), final("ok")]
    )
    _, events = run_agent(ws, script, TASK, level=3, yes=True)
    assert any(e.type == "check" for e in events) and (ws / "generated.txt").exists()
    with Stores.open(chrysalis_home) as stores:
        stores.checkpoints.undo(ws)
    assert (ws / "calc.py").read_text() == ORIGINAL and not (ws / "generated.txt").exists()
