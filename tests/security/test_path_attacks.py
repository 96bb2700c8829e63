"""Path and link attacks through the real file tools, checked on the file system and on what the model sees.

Every case runs one tool call (``ToolSpec.__call__``, as the gated toolset runs it) in a workspace
that sits beside an ``outside`` folder holding a secret, a file whose very name is secret, and a
fake home folder (``$HOME``) with an ``.ssh`` key. Afterwards, whatever the tool answered:

- the outside folder is exactly as before (same entries, contents and modes, nothing new);
- the answer the model would get contains neither the secret nor the secret file name;
- ``before_write`` (the checkpoint hook) was never asked about a path outside the workspace;
- nothing named ``~`` or ``$HOME`` appeared in the workspace (no expansion, no literal copy).

A refused attack must also say why, in words the model can act on (``match``).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from chrysalis.agent.prompts import build_system_prompt
from chrysalis.tools.base import ToolContext, ToolResult, ToolSpec
from chrysalis.tools.files import edit_file, list_dir, read_file, write_file
from chrysalis.tools.patch import apply_patch
from chrysalis.tools.run_tests import code_under_test
from chrysalis.tools.search import find, grep
from chrysalis.tools.workspace import resolve as real_resolve

SECRET = "TOPSECRET-7f3a91"
"""The content of every secret file outside the workspace: it must never reach the model."""
HIDDEN = "hidden-name-93b1.txt"
"""A file outside whose name alone is a secret: listings must never show it."""
LINKED = "OUTSIDE-ORIGINAL-content"
"""The content of ``outside/linked.txt``, which hard-link attacks try to change."""


@dataclass(frozen=True)
class Arena:
    ws: Path
    outside: Path
    home: Path
    before_write: list[Path] = field(default_factory=list[Path])

    def ctx(self, before_write: Callable[[Path], None] | None = None) -> ToolContext:
        def record(path: Path) -> None:
            self.before_write.append(path)
            if before_write is not None:
                before_write(path)

        return ToolContext(workspace=self.ws, before_write=record, shell_timeout=10.0)


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Arena:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    home = outside / "home"
    for path, text in {
        outside / "secret.txt": SECRET,
        outside / HIDDEN: SECRET,
        outside / "sub" / "deep.txt": SECRET,
        outside / "linked.txt": LINKED,
        home / ".ssh" / "id_rsa": SECRET,
        home / ".bashrc": "# " + SECRET,
        ws / "README.md": "hello\n",
        ws / "src" / "app.py": "x = 1\n",
        ws / ".git" / "config": "[core]\n\tbare = false\n",
        ws / ".git" / "hooks" / "README.sample": "samples\n",
        ws / "vendor" / "lib" / ".git" / "config": "[core]\n",
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (outside / "secret.txt").chmod(0o640)
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside)
    (ws / "src" / "deeplink").symlink_to(outside / "sub")
    (ws / "chain_a").symlink_to(ws / "chain_b")
    (ws / "chain_b").symlink_to(outside / "secret.txt")
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "alias.md").symlink_to(ws / "src" / "app.py")
    (ws / "srclink").symlink_to(ws / "src")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SECRET_DIR", str(outside))
    return Arena(ws=ws.resolve(), outside=outside, home=home)


def snapshot(root: Path) -> dict[str, tuple[str, str, int]]:
    """Every entry under ``root`` (links not followed): kind, content or link target, and permission bits."""
    seen: dict[str, tuple[str, str, int]] = {}
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(folder) / name
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(info.st_mode):
                seen[rel] = ("link", str(path.readlink()), 0)
            elif stat.S_ISDIR(info.st_mode):
                seen[rel] = ("dir", "", stat.S_IMODE(info.st_mode))
            elif not stat.S_ISREG(info.st_mode):  # a FIFO: opening it would block
                seen[rel] = ("special", "", stat.S_IMODE(info.st_mode))
            else:
                seen[rel] = ("file", path.read_text(errors="replace"), stat.S_IMODE(info.st_mode))
    return seen


Args = dict[str, Any] | Callable[[Arena], dict[str, Any]]


@dataclass(frozen=True)
class Attack:
    id: str
    tool: ToolSpec
    args: Args
    expect: Literal["refused", "contained"]
    match: str = ""
    """A piece of the error (refused) or of the result (contained) the model must see."""
    setup: Callable[[Arena], None] | None = None
    check: Callable[[Arena, ToolResult], None] | None = None


def _patch(old: str, new: str, body: str) -> dict[str, Any]:
    return {"patch": f"--- {old}\n+++ {new}\n{body}"}


def _mkfifo(arena: Arena) -> None:
    os.mkfifo(arena.ws / "pipe")


def _hard_link(arena: Arena) -> None:
    os.link(arena.outside / "linked.txt", arena.ws / "hard.txt")


def _hard_link_broken(new: str) -> Callable[[Arena, ToolResult], None]:
    def check(arena: Arena, result: ToolResult) -> None:
        mine = arena.ws / "hard.txt"
        assert mine.read_text() == new
        assert mine.stat().st_nlink == 1
        assert (arena.outside / "linked.txt").stat().st_nlink == 1

    return check


def _link_shown_not_followed(arena: Arena, result: ToolResult) -> None:
    assert "linkdir -> outside the workspace" in result.result
    assert "link.txt -> outside the workspace" in result.result
    assert "alias.md -> src/app.py" in result.result
    assert "deep.txt" not in result.result


ATTACKS = [
    # -- reads: traversal, absolute paths, expansion ------------------------------------------------
    Attack("read-dotdot", read_file, {"path": "../outside/secret.txt"}, "refused", "leave the workspace"),
    Attack("read-dotdot-deep", read_file, {"path": "src/../../outside/secret.txt"}, "refused", "leave the workspace"),
    Attack("read-dotdot-many", read_file, {"path": "../" * 40 + "etc/passwd"}, "refused", "leave the workspace"),
    Attack(
        "read-absolute",
        read_file,
        lambda a: {"path": str(a.outside / "secret.txt")},
        "refused",
        "absolute path outside",
    ),
    Attack("read-etc-passwd", read_file, {"path": "/etc/passwd"}, "refused", "absolute path outside"),
    Attack(
        "read-proc-self-root",
        read_file,
        lambda a: {"path": f"/proc/self/root{a.outside}/secret.txt"},
        "refused",
        "absolute path outside",
    ),
    Attack("read-proc-environ", read_file, {"path": "/proc/self/environ"}, "refused", "absolute path outside"),
    Attack("read-tilde", read_file, {"path": "~/.ssh/id_rsa"}, "refused", "not expanded"),
    Attack("read-tilde-user", read_file, {"path": "~root/.ssh/id_rsa"}, "refused", "not expanded"),
    Attack("read-home-var", read_file, {"path": "$HOME/.ssh/id_rsa"}, "refused", "not expanded"),
    Attack("read-braced-var", read_file, {"path": "${SECRET_DIR}/secret.txt"}, "refused", "not expanded"),
    Attack("read-command-subst", read_file, {"path": "$(cat ../outside/secret.txt)"}, "refused", "not expanded"),
    Attack("read-url-encoded", read_file, {"path": "..%2foutside%2fsecret.txt"}, "refused", "does not exist"),
    Attack("read-fullwidth-dots", read_file, {"path": "\uff0e\uff0e/outside/secret.txt"}, "refused", "does not exist"),
    # -- reads: links -------------------------------------------------------------------------------
    Attack("read-symlink-file", read_file, {"path": "link.txt"}, "refused", "symlink"),
    Attack("read-symlinked-dir", read_file, {"path": "linkdir/secret.txt"}, "refused", "symlink"),
    Attack("read-symlinked-subdir", read_file, {"path": "src/deeplink/deep.txt"}, "refused", "symlink"),
    Attack("read-symlink-chain", read_file, {"path": "chain_a"}, "refused", "symlink"),
    Attack("read-symlink-loop", read_file, {"path": "loop"}, "refused", "symlink loop"),
    Attack("read-fifo", read_file, {"path": "pipe"}, "refused", "not a regular file", setup=_mkfifo),
    # -- reads: odd spellings -----------------------------------------------------------------------
    Attack("read-nul", read_file, {"path": "README.md\x00../outside/secret.txt"}, "refused", "NUL"),
    Attack("read-backslash", read_file, {"path": "..\\outside\\secret.txt"}, "refused", "separate folders with '/'"),
    Attack("read-newline", read_file, {"path": "README.md\n../outside/secret.txt"}, "refused", "U+000A"),
    Attack("read-bidi-override", read_file, {"path": "src/\u202eyp.ppa"}, "refused", "U+202E"),
    Attack("read-zero-width", read_file, {"path": "READ\u200bME.md"}, "refused", "U+200B"),
    Attack("read-lone-surrogate", read_file, {"path": "a\ud800.txt"}, "refused", "U+D800"),
    Attack("read-long-name", read_file, {"path": "a" * 300}, "refused", "at most 255"),
    Attack("read-long-path", read_file, {"path": "a/" * 3000}, "refused", "at most 1024"),
    # -- listings and searches ----------------------------------------------------------------------
    Attack("list-root-deep", list_dir, {"depth": 4}, "contained", "src/", check=_link_shown_not_followed),
    Attack("list-symlinked-dir", list_dir, {"path": "linkdir"}, "refused", "symlink"),
    Attack("list-symlinked-subdir", list_dir, {"path": "src/deeplink"}, "refused", "symlink"),
    Attack("list-parent", list_dir, {"path": ".."}, "refused", "leave the workspace"),
    Attack("list-absolute", list_dir, lambda a: {"path": str(a.outside)}, "refused", "absolute path outside"),
    Attack("list-home", list_dir, {"path": "~"}, "refused", "not expanded"),
    Attack("find-everything", find, {"pattern": "**/*"}, "contained", "README.md"),
    Attack("find-hidden-name", find, {"pattern": "hidden-*"}, "contained", "No files match"),
    Attack("find-dotdot", find, {"pattern": "../outside/*"}, "refused", "without '..'"),
    Attack("find-absolute", find, {"pattern": "/etc/*"}, "refused", "relative to the workspace"),
    Attack("grep-everything", grep, {"pattern": "TOPSECRET"}, "contained", "No matches"),
    Attack("grep-glob", grep, {"pattern": "TOPSECRET", "path": "**/*"}, "contained", "No matches"),
    Attack("grep-symlinked-dir", grep, {"pattern": ".", "path": "linkdir"}, "refused", "symlink"),
    Attack("grep-symlink-file", grep, {"pattern": ".", "path": "link.txt"}, "refused", "symlink"),
    Attack("grep-absolute", grep, lambda a: {"pattern": ".", "path": str(a.outside)}, "refused", "absolute path"),
    Attack("grep-fifo", grep, {"pattern": "nothing-matches-this"}, "contained", "No matches", setup=_mkfifo),
    # -- writes: traversal, absolute paths, expansion ----------------------------------------------
    Attack("write-dotdot", write_file, {"path": "../outside/secret.txt", "content": "pwned"}, "refused", "leave"),
    Attack("write-dotdot-new", write_file, {"path": "../outside/new.txt", "content": "pwned"}, "refused", "leave"),
    Attack(
        "write-absolute",
        write_file,
        lambda a: {"path": str(a.outside / "secret.txt"), "content": "pwned"},
        "refused",
        "absolute path outside",
    ),
    Attack(
        "write-absolute-inside",
        write_file,
        lambda a: {"path": str(a.ws / "new.txt"), "content": "x"},
        "refused",
        "relative to the workspace",
    ),
    Attack("write-tilde", write_file, {"path": "~/.bashrc", "content": "pwned"}, "refused", "not expanded"),
    Attack("write-home-var", write_file, {"path": "$HOME/.bashrc", "content": "pwned"}, "refused", "not expanded"),
    Attack("write-braced-var", write_file, {"path": "${HOME}/x", "content": "pwned"}, "refused", "not expanded"),
    # -- writes: links ------------------------------------------------------------------------------
    Attack("write-symlink-file", write_file, {"path": "link.txt", "content": "pwned"}, "refused", "symlink"),
    Attack("write-symlinked-dir", write_file, {"path": "linkdir/secret.txt", "content": "pwned"}, "refused", "symlink"),
    Attack("write-symlinked-dir-new", write_file, {"path": "linkdir/new.txt", "content": "x"}, "refused", "symlink"),
    Attack("write-symlink-chain", write_file, {"path": "chain_a", "content": "pwned"}, "refused", "symlink"),
    Attack("write-symlink-loop", write_file, {"path": "loop", "content": "pwned"}, "refused", "symlink loop"),
    Attack("write-inside-link", write_file, {"path": "alias.md", "content": "x"}, "refused", "goes through a symlink"),
    Attack(
        "write-inside-dir-link", write_file, {"path": "srclink/n.py", "content": "x"}, "refused", "through a symlink"
    ),
    Attack("write-fifo", write_file, {"path": "pipe", "content": "x"}, "refused", "not a regular file", setup=_mkfifo),
    Attack(
        "write-hard-link",
        write_file,
        {"path": "hard.txt", "content": "mine"},
        "contained",
        "hard link",
        setup=_hard_link,
        check=_hard_link_broken("mine"),
    ),
    Attack(
        "edit-hard-link",
        edit_file,
        {"path": "hard.txt", "old_text": "ORIGINAL", "new_text": "EDITED"},
        "contained",
        "hard link",
        setup=_hard_link,
        check=_hard_link_broken(LINKED.replace("ORIGINAL", "EDITED")),
    ),
    Attack(
        "patch-hard-link",
        apply_patch,
        _patch("a/hard.txt", "b/hard.txt", f"@@ -1 +1 @@\n-{LINKED}\n+patched\n"),
        "contained",
        "hard link",
        setup=_hard_link,
        check=_hard_link_broken("patched\n"),
    ),
    # -- writes: code execution through git, and Chrysalis's own settings ---------------------------
    Attack(
        "write-git-hook", write_file, {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}, "refused", ".git"
    ),
    Attack("write-git-config", write_file, {"path": ".git/config", "content": "[core]\n"}, "refused", ".git folder"),
    Attack("write-git-upper", write_file, {"path": ".GIT/config", "content": "[core]\n"}, "refused", ".git folder"),
    Attack("write-git-dotdot", write_file, {"path": "src/../.git/config", "content": "x"}, "refused", ".git folder"),
    Attack("write-git-file", write_file, {"path": ".git", "content": "gitdir: ../outside\n"}, "refused", ".git"),
    Attack(
        "write-nested-git-hook",
        write_file,
        {"path": "vendor/lib/.git/hooks/post-checkout", "content": "#!/bin/sh\n"},
        "refused",
        ".git folder",
    ),
    Attack(
        "edit-git-config",
        edit_file,
        {"path": ".git/config", "old_text": "[core]", "new_text": "[core]\n\tfsmonitor = ../outside/x"},
        "refused",
        ".git folder",
    ),
    Attack(
        "write-own-config",
        write_file,
        {"path": ".chrysalis/config.toml", "content": "level = 3\n"},
        "refused",
        "Chrysalis's own settings",
    ),
    # -- writes: odd spellings ----------------------------------------------------------------------
    Attack("write-nul", write_file, {"path": "a.txt\x00.md", "content": "x"}, "refused", "NUL"),
    Attack("write-bidi-override", write_file, {"path": "notes\u202etxt.py", "content": "x"}, "refused", "U+202E"),
    Attack("write-long-name", write_file, {"path": "b" * 256, "content": "x"}, "refused", "at most 255"),
    Attack("write-surrogate-content", write_file, {"path": "s.txt", "content": "a\ud800b"}, "refused", "surrogate"),
    # -- apply_patch ----------------------------------------------------------------------------------
    Attack(
        "patch-dotdot",
        apply_patch,
        _patch("a/../outside/secret.txt", "b/../outside/secret.txt", f"@@ -1 +1 @@\n-{SECRET}\n+pwned\n"),
        "refused",
        "leave the workspace",
    ),
    Attack(
        "patch-create-outside",
        apply_patch,
        _patch("/dev/null", "b/../outside/new.txt", "@@ -0,0 +1 @@\n+x\n"),
        "refused",
        "leave the workspace",
    ),
    Attack(
        "patch-delete-outside",
        apply_patch,
        _patch("a/../outside/secret.txt", "/dev/null", f"@@ -1 +0,0 @@\n-{SECRET}\n"),
        "refused",
        "leave the workspace",
    ),
    Attack(
        "patch-absolute",
        apply_patch,
        lambda a: _patch(f"{a.outside}/secret.txt", f"{a.outside}/secret.txt", f"@@ -1 +1 @@\n-{SECRET}\n+x\n"),
        "refused",
        "absolute path outside",
    ),
    Attack(
        "patch-symlinked-dir",
        apply_patch,
        _patch("/dev/null", "b/linkdir/new.txt", "@@ -0,0 +1 @@\n+x\n"),
        "refused",
        "symlink",
    ),
    Attack(
        "patch-delete-symlink",
        apply_patch,
        _patch("a/link.txt", "/dev/null", f"@@ -1 +0,0 @@\n-{SECRET}\n"),
        "refused",
        "symlink",
    ),
    Attack(
        "patch-git-hook",
        apply_patch,
        _patch("/dev/null", "b/.git/hooks/post-checkout", "@@ -0,0 +1,2 @@\n+#!/bin/sh\n+cat ../outside/*\n"),
        "refused",
        ".git folder",
    ),
    Attack(
        "patch-tilde",
        apply_patch,
        _patch("a/~/.bashrc", "b/~/.bashrc", "@@ -1 +1 @@\n-x\n+y\n"),
        "refused",
        "not expanded",
    ),
]


def _run(attack: Attack, arena: Arena) -> ToolResult:
    args = attack.args(arena) if callable(attack.args) else attack.args
    return attack.tool(args, arena.ctx())


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_attack_is_refused_or_contained(attack: Attack, arena: Arena) -> None:
    if attack.setup is not None:
        attack.setup(arena)
    before_outside, before_ws = snapshot(arena.outside), snapshot(arena.ws)

    result = _run(attack, arena)

    seen = json.dumps(result.for_model())
    assert SECRET not in seen
    assert HIDDEN not in seen
    assert snapshot(arena.outside) == before_outside
    assert all(path.is_relative_to(arena.ws) for path in arena.before_write)
    assert not {"~", "$HOME", "${HOME}"} & {p.name for p in arena.ws.iterdir()}
    if attack.expect == "refused":
        assert not result.ok, result.result
        assert attack.match in (result.error or ""), result.error
        assert snapshot(arena.ws) == before_ws  # a refused call changes nothing at all
    else:
        assert result.ok, result.error
        assert attack.match in result.result
    if attack.check is not None:
        attack.check(arena, result)


def test_there_are_enough_attacks() -> None:
    assert len(ATTACKS) >= 30
    assert len({a.id for a in ATTACKS}) == len(ATTACKS)


# -- Swaps between the check and the use (TOCTOU) ---------------------------------------------------


def test_folder_swapped_for_a_link_after_the_check_is_not_written_through(arena: Arena) -> None:
    (arena.ws / "sub").mkdir()
    (arena.ws / "sub" / "secret.txt").write_text("mine\n")
    before = snapshot(arena.outside)

    def swap(_path: Path) -> None:  # runs after resolve() checked the path, before the file is written
        (arena.ws / "sub").rename(arena.ws / "sub.old")
        (arena.ws / "sub").symlink_to(arena.outside)

    result = write_file({"path": "sub/secret.txt", "content": "pwned"}, arena.ctx(swap))
    assert not result.ok
    assert "symlink" in (result.error or "")
    assert snapshot(arena.outside) == before


def test_file_swapped_for_a_link_after_the_check_is_not_written_through(arena: Arena) -> None:
    (arena.ws / "notes.txt").write_text("mine\n")
    before = snapshot(arena.outside)

    def swap(_path: Path) -> None:
        (arena.ws / "notes.txt").unlink()
        (arena.ws / "notes.txt").symlink_to(arena.outside / "secret.txt")

    result = write_file({"path": "notes.txt", "content": "pwned"}, arena.ctx(swap))
    assert not result.ok
    assert "is a symlink" in (result.error or "")
    assert snapshot(arena.outside) == before


def test_folder_swapped_for_a_link_before_a_read_is_not_read_through(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    (arena.ws / "sub").mkdir()
    (arena.ws / "sub" / "secret.txt").write_text("mine\n")

    def resolve_then_swap(workspace: Path, user_path: str, **flags: bool) -> Path:
        path = real_resolve(workspace, user_path, **flags)
        (arena.ws / "sub").rename(arena.ws / "sub.old")
        (arena.ws / "sub").symlink_to(arena.outside)
        return path

    monkeypatch.setattr("chrysalis.tools.files.resolve", resolve_then_swap)
    result = read_file({"path": "sub/secret.txt"}, arena.ctx())
    assert not result.ok
    assert "symlink" in (result.error or "")
    assert SECRET not in json.dumps(result.for_model())


def test_file_swapped_for_a_link_before_a_read_is_not_read_through(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    (arena.ws / "notes.txt").write_text("mine\n")

    def resolve_then_swap(workspace: Path, user_path: str, **flags: bool) -> Path:
        path = real_resolve(workspace, user_path, **flags)
        (arena.ws / "notes.txt").unlink()
        (arena.ws / "notes.txt").symlink_to(arena.outside / "secret.txt")
        return path

    monkeypatch.setattr("chrysalis.tools.files.resolve", resolve_then_swap)
    result = read_file({"path": "notes.txt"}, arena.ctx())
    assert not result.ok
    assert "now a symlink" in (result.error or "")
    assert SECRET not in json.dumps(result.for_model())


# -- What builds the prompt -------------------------------------------------------------------------


def test_system_prompt_workspace_map_does_not_follow_links_out(arena: Arena) -> None:
    prompt = build_system_prompt(arena.ws, "code", level=2)
    assert HIDDEN not in prompt
    assert SECRET not in prompt
    assert "deep.txt" not in prompt and "id_rsa" not in prompt
    assert "linkdir -> outside the workspace" in prompt
    assert "src/deeplink -> outside the workspace" in prompt


def test_system_prompt_does_not_read_rule_files_through_links_out(arena: Arena) -> None:
    (arena.ws / "AGENTS.md").symlink_to(arena.home / ".ssh" / "id_rsa")
    (arena.ws / ".chrysalis").symlink_to(arena.outside)
    (arena.outside / "rules.md").write_text(SECRET)
    prompt = build_system_prompt(arena.ws, "code", level=2)
    assert SECRET not in prompt
    assert "Project rules" not in prompt


def test_refused_test_edit_does_not_show_a_linked_module_from_outside(arena: Arena) -> None:
    # the protected-test refusal shows the first module a test imports; one that is a link out must not count
    (arena.ws / "secretmod.py").symlink_to(arena.outside / "secret.txt")
    (arena.ws / "util.py").write_text("")
    (arena.ws / "test_x.py").write_text("import secretmod\nimport util\n")
    (arena.ws / "test_y.py").symlink_to(arena.outside / "secret.txt")
    assert code_under_test(arena.ws, "test_x.py") == ["util.py"]
    assert code_under_test(arena.ws, "test_y.py") == []
    assert code_under_test(arena.ws, "../outside/secret.txt") == []


# -- Atomic writes keep what they should --------------------------------------------------------------


def test_writes_keep_the_mode_and_leave_no_temporary_files(arena: Arena) -> None:
    script = arena.ws / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o750)
    ctx = arena.ctx()
    assert write_file({"path": "run.sh", "content": "echo two\n"}, ctx).ok
    assert edit_file({"path": "run.sh", "old_text": "two", "new_text": "three"}, ctx).ok
    assert apply_patch(_patch("a/run.sh", "b/run.sh", "@@ -1 +1 @@\n-echo three\n+echo four\n"), ctx).ok
    assert script.read_text() == "echo four\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert write_file({"path": "new/deeper/file.txt", "content": "x"}, ctx).ok
    leftovers = [p for p in arena.ws.rglob("*") if p.name.startswith(".chrysalis-")]
    assert leftovers == []


def test_a_failed_write_leaves_the_old_file_whole(arena: Arena) -> None:
    (arena.ws / "keep.txt").write_text("old\n")
    (arena.ws / "keep.txt").chmod(0o444)
    result = write_file({"path": "keep.txt", "content": "new\n"}, arena.ctx())
    if os.geteuid() == 0:  # root may write any file, as it could before
        assert result.ok
        assert (arena.ws / "keep.txt").read_text() == "new\n"
        assert stat.S_IMODE((arena.ws / "keep.txt").stat().st_mode) == 0o444
    else:
        assert not result.ok
        assert "read-only" in (result.error or "")
        assert (arena.ws / "keep.txt").read_text() == "old\n"
