"""Undo for commands: the shadow git snapshots around shell commands and commits, with real git and real files."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git

from chrysalis.errors import UsageError
from chrysalis.stores import SnapshotUnavailable, Stores
from chrysalis.stores import shadow as shadow_module


def sh(workspace: Path, command: str) -> None:
    """A command as the shell tool runs it: bash in the workspace."""
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True, capture_output=True)


def run_command(stores: Stores, workspace: Path, command: str, run_id: str = "run-1", kind: str = "shell") -> None:
    with stores.checkpoints.around_command(run_id, workspace, kind):
        sh(workspace, command)


def make_repo(workspace: Path) -> None:
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "start", "--allow-empty")


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes and its permissions: what 'untouched' means."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(folder))] = f"{digest} {path.stat().st_mode:o}"
    return found


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (workspace / "notes.md").write_text("notes\n")
    (workspace / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (workspace / "run.sh").chmod(0o755)
    return workspace


def test_undo_restores_a_file_a_command_changed_with_sed(stores: Stores, project: Path) -> None:
    run_command(stores, project, "sed -i 's/a + b/a - b/' calc.py")
    assert "a - b" in (project / "calc.py").read_text()

    report = stores.checkpoints.undo(project)

    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert report.restored == (project.resolve() / "calc.py",)


def test_undo_deletes_what_a_command_created_with_its_folders(stores: Stores, project: Path) -> None:
    run_command(stores, project, "mkdir -p build/out && echo x > build/out/made.txt && echo y > new.txt")
    stores.checkpoints.undo(project)
    assert not (project / "new.txt").exists()
    assert not (project / "build").exists()
    assert sorted(p.name for p in project.iterdir()) == ["calc.py", "notes.md", "run.sh"]


def test_undo_brings_back_what_a_command_deleted_with_its_mode(stores: Stores, project: Path) -> None:
    run_command(stores, project, "rm run.sh notes.md")
    stores.checkpoints.undo(project)
    assert (project / "run.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert os.access(project / "run.sh", os.X_OK)
    assert (project / "notes.md").read_text() == "notes\n"


def test_undo_brings_back_links_and_exact_bytes(stores: Stores, project: Path) -> None:
    (project / "latest").symlink_to("notes.md")
    (project / "win.txt").write_bytes(b"one\r\ntwo\r\n\x00\xff")
    (project / ".gitattributes").write_text("* text=auto eol=crlf\n*.txt filter=nope\n")
    run_command(stores, project, "rm latest && ln -s calc.py latest && printf 'x\\n' > win.txt")
    stores.checkpoints.undo(project)
    assert (project / "latest").readlink() == Path("notes.md")
    assert (project / "win.txt").read_bytes() == b"one\r\ntwo\r\n\x00\xff"


def test_undo_restores_the_files_of_a_commit_and_leaves_the_commit(stores: Stores, project: Path) -> None:
    make_repo(project)
    start = git(project, "rev-parse", "HEAD")
    run_command(stores, project, "sed -i 's/notes/changed/' notes.md && echo new > new.txt")
    with stores.checkpoints.around_command("run-1", project, "git_commit"):
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "the agent's commit")
    committed = git(project, "rev-parse", "HEAD")

    report = stores.checkpoints.undo(project)

    assert (project / "notes.md").read_text() == "notes\n" and not (project / "new.txt").exists()
    assert git(project, "rev-parse", "HEAD") == committed  # history is left alone
    assert (report.head_before, report.head_after) == (start, committed)
    note = " ".join(report.notes())
    assert "stay in the history" in note and f"git reset {start[:12]}" in note
    assert git(project, "diff", "--name-only").splitlines() == ["new.txt", "notes.md"]  # the undo, uncommitted


def test_a_commit_hook_that_rewrites_files_is_undone(stores: Stores, project: Path) -> None:
    # git_commit runs the project's own hooks (that is git's job); a formatter hook changes files.
    make_repo(project)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho formatted > notes.md\n")
    hook.chmod(0o755)
    with stores.checkpoints.around_command("run-1", project, "git_commit"):
        git(project, "commit", "-q", "--allow-empty", "-m", "x")
    assert (project / "notes.md").read_text() == "formatted\n"
    stores.checkpoints.undo(project)
    assert (project / "notes.md").read_text() == "notes\n"


def test_the_real_git_dir_is_never_touched(stores: Stores, project: Path) -> None:
    make_repo(project)
    (project / "untracked.txt").write_text("mine\n")
    before = fingerprint(project / ".git")
    run_command(stores, project, "sed -i s/add/plus/ calc.py && rm notes.md && echo n > n.txt")
    run_command(stores, project, "echo more >> calc.py")
    stores.checkpoints.undo(project)
    assert fingerprint(project / ".git") == before  # refs, index, hooks, config: byte for byte
    assert git(project, "status", "--porcelain") == "?? untracked.txt"


def test_the_projects_hooks_filters_and_fsmonitor_never_run(
    stores: Stores, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(project)
    marker = tmp_path / "ran"
    script = f'#!/bin/sh\necho "$0" >> {marker}\ncat\n'
    hooks = project / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-commit", "post-index-change", "reference-transaction", "post-checkout", "evil"):
        (hooks / name).write_text(script)
        (hooks / name).chmod(0o755)
    git(project, "config", "core.fsmonitor", str(hooks / "evil"))
    git(project, "config", "filter.evil.clean", str(hooks / "evil"))
    git(project, "config", "filter.evil.smudge", str(hooks / "evil"))
    git(project, "config", "core.hooksPath", str(hooks))
    (project / ".gitattributes").write_text("* filter=evil\n")
    home_config = tmp_path / "gitconfig"
    home_config.write_text(f'[core]\n\tfsmonitor = {hooks / "evil"}\n[filter "evil"]\n\tclean = {hooks / "evil"}\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home_config))  # the user's global config is not read either
    run_command(stores, project, "echo changed > notes.md && echo new > new.txt")
    stores.checkpoints.undo(project)
    assert not marker.exists()
    assert (project / "notes.md").read_text() == "notes\n" and not (project / "new.txt").exists()


def test_works_in_a_folder_that_is_not_a_git_repository(stores: Stores, project: Path) -> None:
    run_command(stores, project, "echo changed > notes.md && rm calc.py && touch made.txt")
    report = stores.checkpoints.undo(project)
    assert (project / "notes.md").read_text() == "notes\n" and (project / "calc.py").is_file()
    assert not (project / "made.txt").exists()
    assert (report.head_before, report.head_after, report.notes()) == (None, None, [])
    assert not (project / ".git").exists()


def test_file_tool_writes_and_commands_mix_and_the_earliest_state_wins(stores: Stores, project: Path) -> None:
    cp = stores.checkpoints
    # calc.py: a tool writes first, then a command changes it again -> the tool's snapshot (the original).
    cp.snapshot("run-1", project, Path("calc.py"))
    (project / "calc.py").write_text("tool version\n")
    # notes.md: a command changes it first, then a tool rewrites it -> the tree before the command.
    run_command(stores, project, "echo command >> calc.py && echo command > notes.md && echo c > by_command.txt")
    cp.snapshot("run-1", project, Path("notes.md"))
    (project / "notes.md").write_text("tool after command\n")
    # made.py: created by a tool, then changed by a command -> deleted.
    cp.snapshot("run-1", project, Path("pkg/made.py"))
    (project / "pkg").mkdir()
    (project / "pkg" / "made.py").write_text("x = 1\n")
    run_command(stores, project, "echo 'y = 2' >> pkg/made.py && rm by_command.txt && echo again > again.txt")

    cp.undo(project)

    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (project / "notes.md").read_text() == "notes\n"
    assert sorted(p.name for p in project.iterdir()) == ["calc.py", "notes.md", "run.sh"]


def test_files_the_run_did_not_touch_are_left_alone(stores: Stores, project: Path) -> None:
    run_command(stores, project, "echo one > first.txt")
    (project / "mine.txt").write_text("the user's, written between two commands\n")
    (project / "notes.md").write_text("the user's edit\n")
    run_command(stores, project, "echo two > second.txt")
    stores.checkpoints.undo(project)
    assert (project / "mine.txt").is_file() and (project / "notes.md").read_text() == "the user's edit\n"
    assert not (project / "first.txt").exists() and not (project / "second.txt").exists()


def test_ignored_folders_are_neither_snapshotted_nor_touched(stores: Stores, project: Path) -> None:
    (project / ".gitignore").write_text(".venv/\nnode_modules\n*.log\n")
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / ".venv" / "lib" / "site.py").write_text("installed\n")
    run_command(
        stores, project, "echo upgraded > .venv/lib/site.py && mkdir node_modules && touch node_modules/x a.log"
    )
    stores.checkpoints.undo(project)
    assert (project / ".venv" / "lib" / "site.py").read_text() == "upgraded\n"  # not the run's snapshot to restore
    assert (project / "node_modules" / "x").exists() and (project / "a.log").exists()
    shadow = stores.checkpoints.shadow(project)
    listed = subprocess.run(
        ["git", f"--git-dir={shadow.git_dir}", "ls-files"], capture_output=True, text=True, check=True
    ).stdout
    assert ".venv" not in listed and "node_modules" not in listed and "calc.py" in listed


def test_an_ignored_file_a_file_tool_wrote_is_restored(stores: Stores, project: Path) -> None:
    (project / ".gitignore").write_text("*.env\n")
    (project / "local.env").write_text("KEY=1\n")
    stores.checkpoints.snapshot("run-1", project, Path("local.env"))
    (project / "local.env").write_text("KEY=2\n")
    run_command(stores, project, "echo ran > out.txt")
    stores.checkpoints.undo(project)
    assert (project / "local.env").read_text() == "KEY=1\n" and not (project / "out.txt").exists()


def test_files_a_run_unignored_are_left_in_place(stores: Stores, project: Path) -> None:
    (project / ".gitignore").write_text("data/\n")
    (project / "data").mkdir()
    (project / "data" / "big.bin").write_bytes(b"\x00" * 1000)
    run_command(stores, project, "rm .gitignore && echo made > made.txt")
    report = stores.checkpoints.undo(project)
    assert (project / ".gitignore").read_text() == "data/\n"
    assert (project / "data" / "big.bin").stat().st_size == 1000 and not (project / "made.txt").exists()
    assert report.left == (project.resolve() / "data" / "big.bin",)
    assert "Left in place 1 file" in " ".join(report.notes())


def test_a_command_that_fails_is_still_undone(stores: Stores, project: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError), stores.checkpoints.around_command("run-1", project, "shell"):
        sh(project, "echo half > notes.md && exit 3")
    stores.checkpoints.undo(project)
    assert (project / "notes.md").read_text() == "notes\n"


def test_a_command_whose_process_died_is_compared_with_the_workspace_at_undo(home: Path, project: Path) -> None:
    # The process ends during the command (killed, power cut): no snapshot after it.
    script = (
        "import os, subprocess, sys\n"
        "from pathlib import Path\n"
        "from chrysalis.stores import Stores\n"
        "stores = Stores.open(Path(sys.argv[1]))\n"
        "snapshots = stores.checkpoints.around_command('run-1', Path(sys.argv[2]), 'shell')\n"
        "snapshots.__enter__()\n"
        "subprocess.run(['bash', '-c', 'echo half > notes.md && touch partial.txt'], cwd=sys.argv[2], check=True)\n"
        "os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(home), str(project)], capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    assert (project / "partial.txt").exists()
    with Stores.open(home) as stores:
        stores.checkpoints.undo(project)
    assert (project / "notes.md").read_text() == "notes\n" and not (project / "partial.txt").exists()


def test_nested_repositories_are_left_out_and_do_not_break_snapshots(stores: Stores, project: Path) -> None:
    (project / "vendor" / "empty").mkdir(parents=True)
    git(project / "vendor" / "empty", "init", "-q")  # no commit: `git add` of it would fail
    run_command(stores, project, "echo inside > vendor/empty/file.txt && echo out > calc.py")
    stores.checkpoints.undo(project)
    assert (project / "calc.py").read_text().startswith("def add")
    assert (project / "vendor" / "empty" / "file.txt").read_text() == "inside\n"  # not ours: a separate repository


def test_chrysalis_home_inside_the_workspace_is_not_snapshotted(project: Path) -> None:
    with Stores.open(project / ".chrysalis-home") as stores:
        run_command(stores, project, "echo x > made.txt")
        stores.checkpoints.undo(project)
        assert not (project / "made.txt").exists()
        assert (project / ".chrysalis-home" / "chrysalis.db").is_file()


def test_without_git_the_snapshot_is_refused_with_the_reason(
    stores: Stores, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with (
        pytest.raises(SnapshotUnavailable, match="git is not installed") as caught,
        stores.checkpoints.around_command("run-1", project, "shell"),
    ):
        pytest.fail("the command must not run without a snapshot")
    assert isinstance(caught.value, UsageError)  # exit code 2 at the CLI, a refusal the model sees in a run


def test_a_workspace_too_big_to_snapshot_is_refused_naming_the_folders(
    stores: Stores, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shadow_module, "MAX_NEW_FILES", 20)
    (project / "dataset").mkdir()
    for n in range(30):
        (project / "dataset" / f"{n}.csv").write_text("1,2\n")
    with pytest.raises(SnapshotUnavailable, match=r"dataset \(\d+\+ files\).*\.gitignore"):
        run_command(stores, project, "touch never-ran")
    assert not (project / "never-ran").exists()
    (project / ".gitignore").write_text("dataset/\n")
    run_command(stores, project, "touch ran")  # ignored, the folder no longer counts
    stores.checkpoints.undo(project)
    assert not (project / "ran").exists()


def test_a_file_too_many_bytes_is_refused(stores: Stores, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shadow_module, "MAX_NEW_BYTES", 10_000)
    (project / "model.bin").write_bytes(b"\x01" * 20_000)
    with pytest.raises(SnapshotUnavailable, match="MB"):
        run_command(stores, project, "true")


def test_commands_of_an_older_run_are_not_undone_with_the_newer(stores: Stores, project: Path) -> None:
    run_command(stores, project, "echo one > notes.md", run_id="run-1")
    run_command(stores, project, "echo two > notes.md && touch two.txt", run_id="run-2")
    assert stores.checkpoints.undo(project).run_id == "run-2"
    assert (project / "notes.md").read_text() == "one\n" and not (project / "two.txt").exists()
    assert stores.checkpoints.undo(project).run_id == "run-1"
    assert (project / "notes.md").read_text() == "notes\n"
    with pytest.raises(UsageError, match="Nothing to undo"):
        stores.checkpoints.undo(project)


def test_undo_never_writes_through_a_folder_that_became_a_link(stores: Stores, project: Path, tmp_path: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("a = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    run_command(stores, project, "rm -r src")
    (project / "src").symlink_to(outside)  # made after the run, by someone else
    with pytest.raises(UsageError, match="src is a link now"):
        stores.checkpoints.undo(project)
    assert list(outside.iterdir()) == []
