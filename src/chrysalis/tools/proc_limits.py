"""Limits on what one command may use: memory, processes, file size; and a way to kill all it started.

The limits are set by a tiny ``bash -c 'ulimit ...; exec "$@"'`` in front of the sandbox, so they
hold for the sandbox and everything in it, whichever sandbox runs (and without one), with no
``preexec_fn`` (unsafe in a process with threads, and the final check runs in one).

- Memory is ``RLIMIT_DATA`` (the heap and private writable mappings) rather than ``RLIMIT_AS``:
  runtimes such as V8 and the JVM reserve large address ranges they never touch, and would fail
  to start under an address-space limit.
- Processes: ``RLIMIT_NPROC`` counts every task of the real user, so the limit is the user's
  tasks now plus ``Limits.processes``. The kernel never applies it to root, so where a ``pids``
  cgroup can be created (root, or a delegated hierarchy), each command also gets its own cgroup
  with ``pids.max``: a fork bomb stops there, and every process in the cgroup is killed afterwards,
  even one that left the process group with ``setsid``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import resource
import shlex
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Limits", "PidsCgroup", "default_memory_bytes", "limits_prefix"]

_GIB = 1 << 30
_cgroup_ids = itertools.count()


def default_memory_bytes() -> int:
    """Half the machine's memory (at least 1 GiB): one command cannot take the machine down alone."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # no such sysconf name here
        return 4 * _GIB
    return max(_GIB, total // 2)


@dataclass(frozen=True)
class Limits:
    """What one command (with everything it starts) may use; the time limit is ``shell_timeout``."""

    memory_bytes: int = default_memory_bytes()
    """Heap and private writable memory per process (``RLIMIT_DATA``)."""
    processes: int = 1024
    """Processes and threads the command may add (``RLIMIT_NPROC`` above the user's count, and ``pids.max``)."""
    file_bytes: int = 4 * _GIB
    """Largest file a command may write (``RLIMIT_FSIZE``)."""
    output_bytes: int = 64 << 20
    """Output read before the command is stopped; only its head and tail are kept in memory."""


def _user_tasks() -> int:
    """Tasks (processes and threads) of this real user now: what ``RLIMIT_NPROC`` counts against."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):  # the process ended meanwhile
                if entry.stat().st_uid == uid:
                    count += sum(1 for _ in os.scandir(f"/proc/{entry.name}/task"))
    return count


def _capped(value: int, which: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def limits_prefix(limits: Limits, cgroup: Path | None) -> list[str]:
    """The argv to put in front of a command: set the limits (and join ``cgroup``), then exec it."""
    processes = limits.processes + (_user_tasks() if os.getuid() != 0 else 0)
    steps = [
        "ulimit -c 0",
        f"ulimit -d {_capped(limits.memory_bytes, resource.RLIMIT_DATA) // 1024}",
        f"ulimit -f {_capped(limits.file_bytes, resource.RLIMIT_FSIZE) // 1024}",
        f"ulimit -u {_capped(processes, resource.RLIMIT_NPROC)}",
    ]
    if cgroup is not None:
        steps.append(f"echo $$ > {shlex.quote(str(cgroup / 'cgroup.procs'))}")
    return [_bash(), "-c", " && ".join(steps) + ' && exec "$@"', "chrysalis-limits"]


@functools.cache
def _bash() -> str:
    return shutil.which("bash") or "/bin/bash"


@functools.cache
def _pids_hierarchy() -> Path | None:
    """A writable ``pids`` cgroup hierarchy (v1 ``/sys/fs/cgroup/pids``, or v2 with pids enabled)."""
    base = Path("/sys/fs/cgroup")
    candidates = [base / "pids"]
    with contextlib.suppress(OSError):
        if "pids" in (base / "cgroup.subtree_control").read_text().split():
            candidates.append(base)
    for root in candidates:
        if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK):
            return root
    return None


class PidsCgroup:
    """One command's own ``pids`` cgroup: at most ``limit`` processes, all killed on ``close``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @staticmethod
    def available() -> bool:
        """Whether commands here get their own ``pids`` cgroup."""
        return _pids_hierarchy() is not None

    @classmethod
    def create(cls, limit: int) -> PidsCgroup | None:
        """A new cgroup limited to ``limit`` processes, or ``None`` where none can be made here."""
        root = _pids_hierarchy()
        if root is None:
            return None
        _remove_stale(root)
        path = root / f"chrysalis-{os.getpid()}-{next(_cgroup_ids)}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path)

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(line) for line in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def close(self) -> None:
        """Kill every process left in the cgroup, then remove it."""
        for _attempt in range(200):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)  # killed processes leave the cgroup when their parent has reaped them
        with contextlib.suppress(OSError):  # killed processes may take a moment to leave: the next sweep removes it
            self.path.rmdir()


def _remove_stale(root: Path) -> None:
    """Remove the empty cgroups of Chrysalis processes that ended without cleaning up."""
    for path in root.glob("chrysalis-*-*"):
        owner = path.name.split("-")[1]
        if owner.isdigit() and int(owner) != os.getpid() and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(OSError):
                path.rmdir()
