"""`chrysalis undo` after a run whose shell commands and commit changed files: real processes, real git."""

from __future__ import annotations

from pathlib import Path

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import chrysalis, git, scripted

ORIGINAL = "def add(a, b):\n    return a + b\n"


def run_script(workspace: Path, *calls: tuple[str, dict[str, str]]) -> None:
    script = [ScriptedReply.tool_call(name, args) for name, args in calls] + [ScriptedReply(text="Done.")]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run", "change it", *scripted(server.base_url), "--level", "3", "--yes", "--workspace", str(workspace)
        )
    assert done.returncode == 0, done.stdout + done.stderr


def test_undo_restores_what_commands_changed_and_says_the_commit_stays(tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "calc.py").write_text(ORIGINAL)
    (ws / "keep.txt").write_text("keep\n")
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "start")
    start = git(ws, "rev-parse", "HEAD")

    run_script(
        ws,
        ("shell", {"command": "sed -i 's/a + b/a - b/' calc.py && rm keep.txt && mkdir out && echo x > out/made.txt"}),
        ("git_commit", {"message": "agent work"}),
    )
    assert "a - b" in (ws / "calc.py").read_text() and git(ws, "rev-parse", "HEAD") != start

    undo = chrysalis("undo", "--workspace", str(ws))

    assert undo.returncode == 0, undo.stderr
    assert (ws / "calc.py").read_text() == ORIGINAL and (ws / "keep.txt").read_text() == "keep\n"
    assert not (ws / "out").exists()
    out = " ".join(undo.stdout.split())
    assert "undid 3 file(s)" in out and "stay in the history" in out and f"git reset {start[:12]}" in out
    git(ws, "reset", "-q", start)  # what the message suggests: now nothing differs from before the run
    assert git(ws, "status", "--porcelain") == ""


def test_undo_after_commands_in_a_folder_that_is_not_a_repository(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "data.csv").write_text("a,b\n1,2\n")
    run_script(ws, ("shell", {"command": "sed -i 's/1,2/9,9/' data.csv && touch made.txt"}))
    undo = chrysalis("undo", "--workspace", str(ws))
    assert undo.returncode == 0, undo.stderr
    assert (ws / "data.csv").read_text() == "a,b\n1,2\n" and sorted(p.name for p in ws.iterdir()) == ["data.csv"]
    assert "history" not in undo.stdout
