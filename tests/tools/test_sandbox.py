"""The sandbox module: which sandbox is chosen, what a command sees, its environment and its limits."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.errors import ConfigError
from chrysalis.tools import sandbox
from chrysalis.tools.base import ToolContext
from chrysalis.tools.proc_limits import Limits, PidsCgroup
from chrysalis.tools.sandbox import (
    BACKENDS,
    Backend,
    BackendName,
    SandboxOptions,
    SandboxSpec,
    SandboxUnavailable,
    confine,
    describe,
    probe,
    select_backend,
)
from chrysalis.tools.sandbox_env import command_env, looks_secret
from chrysalis.tools.sandbox_paths import python_dirs
from chrysalis.tools.shell import run_command, shell
from tests.helpers import SANDBOX_KINDS, SANDBOX_REFUSED, sandbox_works


@pytest.fixture(params=SANDBOX_KINDS)
def kind(request: pytest.FixtureRequest) -> BackendName:
    chosen: BackendName = request.param
    return chosen


def in_sandbox(ctx: ToolContext, kind: BackendName, limits: Limits | None = None) -> ToolContext:
    return replace(ctx, sandbox_options=SandboxOptions(backend=kind, limits=limits or Limits()))


def run(ctx: ToolContext, kind: BackendName, command: str) -> str | None:
    """The command's report in sandbox ``kind``, or None where it cannot run here (then it must have been refused)."""
    result = shell({"command": command}, in_sandbox(ctx, kind, ctx.sandbox_options.limits))
    if not sandbox_works(kind):
        assert not result.ok and SANDBOX_REFUSED in (result.error or "")
        return None
    assert result.ok, result.error
    text: str = result.result
    return text


@pytest.fixture
def broken_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe", lambda kind: Backend(kind, problem="no user namespaces (test)"))


# -- the environment ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("AWS_REGION", True),
        ("SSH_AUTH_SOCK", True),
        ("CHRYSALIS_HOME", True),
        ("DB_PASSWORD", True),
        ("LC_SESSION_ID", True),
        ("npm_config__authToken", True),
        ("LANG", False),
        ("LC_ALL", False),
        ("TERM", False),
        ("PYTHONPATH", False),
        ("TZ", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret


def test_the_environment_is_an_allow_list_minus_anything_secret() -> None:
    host = {
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "LC_API_TOKEN": "t",
        "OPENAI_API_KEY": "sk",
        "EDITOR": "vim",
        "PATH": "/host/bin",
        "HOME": "/home/me",
        "PYTHONPATH": "src",
        "GIT_ASKPASS": "x",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    env = command_env(host, PATH="/usr/bin", HOME="/tmp/home")
    assert env == {
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "PYTHONPATH": "src",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PATH": "/usr/bin",
        "HOME": "/tmp/home",
    }


# -- what a command sees, in every sandbox -------------------------------------------------------------------


def test_a_venv_in_the_workspace_is_the_python_commands_get(ws: Path, ctx: ToolContext, kind: BackendName) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    out = run(ctx, kind, "python -c 'import sys; print(sys.prefix)'; echo $VIRTUAL_ENV")
    if out is not None:
        assert out == f"exit code 0\n{ws / '.venv'}\n{ws / '.venv'}"


def test_pytest_from_chrysalis_venv_runs_read_only(ws: Path, ctx: ToolContext, kind: BackendName) -> None:
    (ws / "test_it.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    out = run(replace(ctx, writable=False), kind, "python -m pytest -q -p no:cacheprovider")
    if out is not None:
        assert out.startswith("exit code 0 (read-only sandbox, no network)\n") and "1 passed" in out
        assert sorted(p.name for p in ws.iterdir()) == ["test_it.py"]  # no __pycache__, no cache


def test_read_only_and_writable_workspace(ws: Path, ctx: ToolContext, kind: BackendName) -> None:
    out = run(replace(ctx, writable=False), kind, "echo x > made.txt")
    if out is not None:
        assert "made.txt" in out and not (ws / "made.txt").exists()
        assert run(ctx, kind, "echo x > made.txt") == "exit code 0\n(no output)"
        assert (ws / "made.txt").read_text() == "x\n"


def test_the_limits_are_set(ctx: ToolContext, kind: BackendName) -> None:
    limits = Limits(memory_bytes=512 << 20, processes=100, file_bytes=1 << 20)
    out = run(in_sandbox(ctx, kind, limits), kind, "ulimit -d; ulimit -f; ulimit -c; head -c 2000000 /dev/zero > big")
    if out is not None:
        lines = out.splitlines()
        assert lines[1:4] == [str(512 << 10), "1024", "0"]
        assert "File size limit exceeded" in out or lines[0] != "exit code 0"


def test_home_and_tmp_are_private(ctx: ToolContext, kind: BackendName, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/nobody-here")
    out = run(ctx, kind, 'echo $HOME; touch ~/x "$TMPDIR/y" && echo wrote')  # Landlock: /tmp itself is closed
    if out is not None:
        home = out.splitlines()[1]
        assert home != "/home/nobody-here" and out.endswith("wrote")


def test_a_readable_folder_outside_the_workspace_can_be_read_not_written(
    ws: Path, ctx: ToolContext, kind: BackendName
) -> None:
    extra = ws.parent / "plugin"
    extra.mkdir()
    (extra / "note.txt").write_text("seen\n")
    command = f"cat {extra}/note.txt; echo x > {extra}/made.txt"
    context = in_sandbox(ctx, kind)
    if not sandbox_works(kind):
        return
    assert "seen" not in run_command(command, context)[1]  # outside the workspace: hidden by default
    code, report = run_command(command, context, readable=(extra,))
    assert report.splitlines()[1] == "seen" and code != 0
    assert not (extra / "made.txt").exists()


# -- which sandbox ----------------------------------------------------------------------------------------------


def test_auto_takes_the_first_sandbox_that_works(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sandbox.probe
    monkeypatch.setattr(sandbox, "probe", lambda k: Backend(k, problem="broken") if k == "system-bwrap" else real(k))
    chosen = select_backend(SandboxOptions())
    assert chosen.kind == next((k for k in BACKENDS[1:] if real(k).works), "none")


@pytest.mark.usefixtures("broken_probe")
def test_a_sandbox_that_does_not_work_is_refused_naming_it_and_the_fix() -> None:
    with pytest.raises(SandboxUnavailable) as caught:
        select_backend(SandboxOptions(backend="bundled-bwrap"))
    message = str(caught.value)
    assert "bundled-bwrap: no user namespaces (test)" in message and "system-bwrap" not in message
    assert "--unsafe-no-sandbox" in message and "chrysalis doctor" in message


@pytest.mark.usefixtures("broken_probe")
def test_unsafe_no_sandbox_runs_unconfined_with_the_filtered_environment(ws: Path) -> None:
    confined = confine(SandboxSpec(ws, writable=True, options=SandboxOptions(unsafe_no_sandbox=True)), "true")
    try:
        assert (
            confined.kind == "none" and confined.argv[-3:] == ["bash", "-c", "true"] and confined.note == "no sandbox"
        )
        assert not any(looks_secret(name) for name in confined.env)
    finally:
        confined.close()


def test_a_binary_that_cannot_make_namespaces_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "_bwrap_binary", lambda _kind: str(fake))
    sandbox.probe.cache_clear()
    try:
        backend = probe("system-bwrap")
    finally:
        sandbox.probe.cache_clear()
    assert not backend.works and backend.problem == "bwrap: No permissions to create new namespace"


def test_describe_says_what_a_command_may_touch(ws: Path) -> None:
    report = describe(SandboxOptions(), ws)
    assert [b["kind"] for b in report["backends"]] == list(BACKENDS)
    assert report["active"] in BACKENDS or report["commands_refused"]
    assert "/usr" in report["read_only"] and report["network"] is False and report["workspace"] == str(ws)
    assert not {"/home", "/root", "/opt", "/var", str(Path.home())} & set(report["read_only"])


def test_python_dirs_bind_only_python_parts(ws: Path) -> None:
    for folder in python_dirs(ws):
        assert folder.name in ("bin", "lib", "lib64") or (folder / "pyvenv.cfg").is_file(), folder
        assert folder != Path.home()


def test_each_command_gets_its_own_pids_cgroup_and_leaves_none(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[Path, str]] = []
    create = PidsCgroup.create

    def recording(limit: int) -> PidsCgroup | None:
        cgroup = create(limit)
        if cgroup is not None:
            made.append((cgroup.path, (cgroup.path / "pids.max").read_text().strip()))
        return cgroup

    monkeypatch.setattr(PidsCgroup, "create", staticmethod(recording))
    limited = replace(ctx, sandbox_options=SandboxOptions(limits=Limits(processes=77)))
    assert shell({"command": "true"}, limited).result == "exit code 0\n(no output)"
    if not PidsCgroup.available():  # not root and no delegated hierarchy: RLIMIT_NPROC alone holds
        assert made == []
        return
    ((path, limit),) = made
    assert limit == "77" and not path.exists()
    assert not list(path.parent.glob(f"chrysalis-{os.getpid()}-*"))


# -- the settings -------------------------------------------------------------------------------------------


def test_settings_keys_and_flags(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert SandboxOptions.from_settings(load_settings({"workspace": ws})) == SandboxOptions()
    monkeypatch.setenv("CHRYSALIS_SANDBOX_NETWORK", "true")
    settings = load_settings({"workspace": ws, "unsafe_no_sandbox": True})
    assert SandboxOptions.from_settings(settings) == SandboxOptions(network=True, unsafe_no_sandbox=True)
    assert settings.sources["sandbox_network"] == "env CHRYSALIS_SANDBOX_NETWORK"
    monkeypatch.setenv("CHRYSALIS_SANDBOX_NETWORK", "maybe")
    with pytest.raises(ConfigError, match=r"sandbox_network.*true or false"):
        load_settings({"workspace": ws})
