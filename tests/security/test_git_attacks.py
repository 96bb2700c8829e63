"""Code planted in the repository's git config or hooks never runs through the git tools.

The git tools run outside the sandbox. Under bubblewrap a command cannot write ``.git``, but under
Landlock (the fallback) it can, and the file tools refuse ``.git`` only for themselves. So each
attack here plants what a command could (a hook, ``core.fsmonitor``, a filter, diff or merge
driver, an include of any of those) and then calls the git tools: a marker file outside the
workspace must never appear, and the tools must still work.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext, ToolSpec
from chrysalis.tools.git import git_commit, git_diff, git_log, git_status

IDENTITY = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


@dataclass(frozen=True)
class Plant:
    name: str
    setup: Callable[[Path, Path], None]
    """Plants the attack in the workspace; its command touches the marker (second argument)."""


def _hook(ws: Path, marker: Path) -> None:
    for hook in ("pre-commit", "commit-msg", "post-commit", "post-index-change"):
        path = ws / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\ntouch {marker}\n")
        path.chmod(0o755)


def _config(*pairs: tuple[str, str]) -> Callable[[Path, Path], None]:
    def setup(ws: Path, marker: Path) -> None:
        for key, value in pairs:
            git(ws, "config", key, value.format(marker=marker))
        (ws / ".gitattributes").write_text("*.py filter=evil diff=evil merge=evil\n")

    return setup


def _include(ws: Path, marker: Path) -> None:
    (ws / "evil.cfg").write_text(f'[filter "evil"]\n\tclean = "touch {marker}; cat"\n')
    git(ws, "config", "include.path", str(ws / "evil.cfg"))
    (ws / ".gitattributes").write_text("*.py filter=evil\n")


def _hooks_path(ws: Path, marker: Path) -> None:
    (ws / "myhooks").mkdir()
    hook = ws / "myhooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(ws, "config", "core.hooksPath", str(ws / "myhooks"))


PLANTS = [
    Plant("hooks in .git/hooks", _hook),
    Plant("core.hooksPath to a folder of hooks", _hooks_path),
    Plant("core.fsmonitor", _config(("core.fsmonitor", "touch {marker}; true"))),
    Plant("a clean filter", _config(("filter.evil.clean", "touch {marker}; cat"))),
    Plant("a smudge filter", _config(("filter.evil.smudge", "touch {marker}; cat"))),
    Plant("a long-running filter process", _config(("filter.evil.process", "touch {marker}"))),
    Plant("a diff textconv", _config(("diff.evil.textconv", "touch {marker}; cat"))),
    Plant("an external diff driver", _config(("diff.evil.command", "touch {marker}"))),
    Plant("diff.external", _config(("diff.external", "touch {marker}"))),
    Plant("a merge driver", _config(("merge.evil.driver", "touch {marker}"))),
    Plant("a filter from an included config file", _include),
    Plant("core.pager and pager.status", _config(("core.pager", "touch {marker}; cat"), ("pager.status", "true"))),
]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    (ws / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    git(ws, "add", "calc.py")
    git(ws, "commit", "-q", "-m", "Add calc")
    return ws


def _call(tool: ToolSpec, args: dict[str, object], ws: Path) -> None:
    result = tool(args, ToolContext(workspace=ws))
    assert result.ok, f"{tool.name}: {result.error}"


@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_planted_code_never_runs_through_the_git_tools(plant: Plant, repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    plant.setup(repo, marker)
    (repo / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    (repo / "new.py").write_text("x = 1\n")

    _call(git_status, {}, repo)
    _call(git_diff, {}, repo)
    _call(git_diff, {"path": "calc.py"}, repo)
    _call(git_commit, {"message": "Fix sub", "paths": ["calc.py"]}, repo)
    _call(git_commit, {"message": "Everything else"}, repo)
    _call(git_log, {"n": 3}, repo)

    assert not marker.exists(), f"{plant.name}: planted code ran"


def test_the_users_global_filters_still_apply(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the repository's own drivers are blanked: a global one (git-lfs, say) keeps working."""
    marker = tmp_path / "global-ran"
    global_config = tmp_path / "gitconfig"
    global_config.write_text(f'[filter "mine"]\n\tclean = "touch {marker}; cat"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    (repo / ".gitattributes").write_text("*.py filter=mine\n")
    (repo / "new.py").write_text("x = 1\n")
    _call(git_commit, {"message": "Add new"}, repo)
    assert marker.exists()
