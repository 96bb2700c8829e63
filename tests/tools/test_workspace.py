from __future__ import annotations

import os
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolError
from chrysalis.tools.workspace import normalize, relative, resolve, walk_files


def test_relative_paths_resolve_inside(ws: Path) -> None:
    (ws / "src").mkdir()
    assert resolve(ws, "src/a.py") == ws / "src" / "a.py"
    assert resolve(ws, "./src/../src/a.py") == ws / "src" / "a.py"
    assert resolve(ws, ".") == ws


def test_absolute_path_inside_workspace_is_allowed(ws: Path) -> None:
    assert resolve(ws, str(ws / "a.txt")) == ws / "a.txt"


@pytest.mark.parametrize("bad", ["../secret.txt", "src/../../x", "../ws2/a.py"])
def test_dotdot_escape_is_refused(ws: Path, bad: str) -> None:
    with pytest.raises(ToolError, match=r"uses '\.\.' to leave the workspace"):
        resolve(ws, bad)


def test_writes_need_relative_paths(ws: Path) -> None:
    # write_targets cannot see the disk, so the policy must be able to judge the path as written
    with pytest.raises(ToolError, match=r"Give the path relative to the workspace: 'docs/a\.md', not '/"):
        resolve(ws, str(ws / "docs" / "a.md"), for_write=True)


def test_absolute_path_outside_is_refused(ws: Path) -> None:
    with pytest.raises(ToolError, match="absolute path outside the workspace"):
        resolve(ws, "/etc/passwd")


def test_symlink_pointing_outside_is_refused(ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (ws / "link.txt").symlink_to(secret)
    (ws / "linkdir").symlink_to(tmp_path)
    with pytest.raises(ToolError, match="symlink"):
        resolve(ws, "link.txt")
    with pytest.raises(ToolError, match="symlink"):
        resolve(ws, "linkdir/secret.txt")


def test_symlink_inside_is_followed_but_not_written_through(ws: Path) -> None:
    (ws / "real.py").write_text("x = 1\n")
    (ws / "alias.md").symlink_to(ws / "real.py")
    assert resolve(ws, "alias.md") == ws / "real.py"
    with pytest.raises(ToolError, match=r"goes through a symlink to 'real\.py'"):
        resolve(ws, "alias.md", for_write=True)


def test_workspace_given_through_a_symlink_still_works(ws: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(ws)
    assert resolve(alias, "a.txt", for_write=True) == ws / "a.txt"
    assert resolve(alias, str(alias / "a.txt")) == ws / "a.txt"
    with pytest.raises(ToolError, match="leave the workspace"):
        resolve(alias, str(alias / ".." / "x"))
    assert relative(alias, ws / "a.txt") == "a.txt"


def test_must_exist_names_the_path_and_what_to_do(ws: Path) -> None:
    with pytest.raises(ToolError, match=r"'nope\.py' does not exist.*list_dir or find"):
        resolve(ws, "nope.py", must_exist=True)


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b"])
def test_empty_and_nul_paths_are_refused(ws: Path, bad: str) -> None:
    with pytest.raises(ToolError):
        resolve(ws, bad)


def test_relative_and_normalize(ws: Path) -> None:
    assert relative(ws, ws) == "."
    assert relative(ws, ws / "a" / "b.py") == "a/b.py"
    assert normalize("./docs//plan.md") == "docs/plan.md"
    assert normalize("a\\b.py") == "a/b.py"
    assert normalize("./") == "."


def test_walk_files_skips_caches_and_outside_links(ws: Path, tmp_path: Path) -> None:
    for rel in ["b.py", "a/c.py", ".git/config", "__pycache__/x.pyc", "node_modules/m.js", ".venv/bin/py"]:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("x")
    (tmp_path / "outside.py").write_text("x")
    (ws / "out.py").symlink_to(tmp_path / "outside.py")
    (ws / "in.py").symlink_to(ws / "b.py")
    found = [os.path.relpath(p, ws) for p in walk_files(ws, ws)]
    assert found == ["b.py", "in.py", "a/c.py"]
