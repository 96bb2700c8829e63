from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from chrysalis.tools.base import ToolContext, ToolSpec
from chrysalis.tools.git import git_commit, git_diff, git_log, git_status

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05",
}


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(ws: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    git(ws, "init", "-q", "-b", "main")
    (ws / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    git(ws, "add", "calc.py")
    git(ws, "commit", "-q", "-m", "Add calc")
    return ws


@pytest.mark.parametrize(
    ("tool", "args"),
    [(git_status, {}), (git_diff, {}), (git_log, {}), (git_commit, {"message": "x"})],
    ids=["git_status", "git_diff", "git_log", "git_commit"],
)
def test_not_a_repo_is_a_clear_error(
    ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, tool: ToolSpec, args: dict[str, Any]
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(ws.parent))
    result = tool(args, ctx)
    assert not result.ok
    assert "is not a git repository" in (result.error or "")


def test_status_clean_and_dirty(repo: Path, ctx: ToolContext) -> None:
    assert git_status({}, ctx).result == "## main\nNothing changed: the working tree is clean."
    (repo / "calc.py").write_text("changed\n")
    (repo / "new").mkdir()
    (repo / "new" / "n.py").write_text("")
    assert git_status({}, ctx).result == "## main\n M calc.py\n?? new/n.py"


def test_diff_unstaged_staged_and_path(repo: Path, ctx: ToolContext) -> None:
    assert git_diff({}, ctx).result == "No unstaged changes."
    (repo / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    diff = git_diff({"path": "calc.py"}, ctx).result
    assert "-    return a + b\n+    return a - b" in diff
    assert git_diff({"staged": True}, ctx).result == "No staged changes."
    git(repo, "add", "calc.py")
    assert "+    return a - b" in git_diff({"staged": True}, ctx).result
    assert "leave the workspace" in (git_diff({"path": "../x"}, ctx).error or "")


def test_log(repo: Path, ctx: ToolContext) -> None:
    result: str = git_log({"n": 5}, ctx).result
    assert result.endswith(" 2024-01-02 Test: Add calc")
    assert "Bad arguments for git_log: n" in (git_log({"n": "lots"}, ctx).error or "")
    assert "Bad arguments for git_log: n" in (git_log({"n": 0}, ctx).error or "")
    assert git_log({"n": 10**9}, ctx).result == result  # "all of them": the ceiling, not an error


def test_log_of_an_empty_repo(ws: Path, ctx: ToolContext) -> None:
    git(ws, "init", "-q")
    assert git_log({}, ctx).result == "No commits yet."


def test_commit_all_and_selected_paths(repo: Path, ctx: ToolContext) -> None:
    (repo / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    (repo / "notes.md").write_text("notes\n")
    result = git_commit({"message": "Fix sub", "paths": ["calc.py"]}, ctx)
    assert result.ok, result.error
    assert result.result.startswith("Committed ")
    assert "Fix sub" in result.result
    assert "calc.py" in result.result
    assert git_status({}, ctx).result == "## main\n?? notes.md"
    assert git_commit({"message": "Add notes"}, ctx).ok
    assert git(repo, "log", "--format=%s").splitlines() == ["Add notes", "Fix sub", "Add calc"]


def test_commit_errors(repo: Path, ctx: ToolContext) -> None:
    assert "Nothing to commit" in (git_commit({"message": "nothing"}, ctx).error or "")
    assert "commit message is empty" in (git_commit({"message": " "}, ctx).error or "")
    assert "outside the workspace" in (git_commit({"message": "x", "paths": ["/etc/passwd"]}, ctx).error or "")
    assert "git add failed" in (git_commit({"message": "x", "paths": ["ghost.py"]}, ctx).error or "")
    assert "Bad arguments for git_commit: paths" in (git_commit({"message": "x", "paths": "calc.py"}, ctx).error or "")


def test_commit_without_a_git_identity_says_how_to_set_one(
    repo: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    # git would guess an identity from the host name on some machines; a fresh one with none is this:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    (repo / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    error = git_commit({"message": "Fix sub"}, ctx).error or ""
    assert error.startswith("git commit failed: git has no identity to commit as")
    assert 'git config --global user.name "Your Name"' in error
    assert "\n" not in error  # not git's six lines
    assert git(repo, "log", "--format=%s").splitlines() == ["Add calc"]


def test_commit_declares_write_at_level_2_without_file_targets() -> None:
    assert (git_commit.effect, git_commit.level) == ("write", 2)
    assert git_commit.write_targets(git_commit.args.model_validate({"message": "x"})) == []
