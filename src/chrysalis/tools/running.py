"""The commands one run has going, so that a run that is stopped stops them too.

A tool call runs in a worker thread; when its run is cancelled (``--timeout``, Ctrl-C, an editor's
cancel), asyncio stops waiting for the thread but cannot stop the thread itself, and the command it
started would go on until its own timeout, up to minutes past the run's end, while the process
waits for it to exit. The run's ``RunningCommands`` kills their process groups instead.
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["RunningCommands", "kill_group"]


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (a command and everything it started); gone already is fine."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class RunningCommands:
    """The process groups of one run's commands still running; ``stop_all`` kills them and any started later."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._stopped = False

    def started(self, pid: int) -> None:
        """Record a command's process group; a command started after ``stop_all`` is killed at once."""
        with self._lock:
            self._groups.add(pid)
            if self._stopped:
                kill_group(pid)

    def ended(self, pid: int) -> None:
        """Forget a command that has finished (its group was already reaped)."""
        with self._lock:
            self._groups.discard(pid)

    def stop_all(self) -> None:
        """Kill every command still running, and every one started from now on (the run is over)."""
        with self._lock:
            self._stopped = True
            for pid in self._groups:
                kill_group(pid)

    @property
    def stopped(self) -> bool:
        """Whether ``stop_all`` was called."""
        return self._stopped

    def __len__(self) -> int:
        with self._lock:
            return len(self._groups)
