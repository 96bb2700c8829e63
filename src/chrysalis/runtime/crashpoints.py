"""Fault injection for the kill test: a worker that SIGKILLs itself at a point it has not died at before.

Off unless ``CHRYSALIS_CRASH_POINTS`` names a file. Then each named point a durable run passes
(before a step, inside a model call, before and after a tool's effect) is looked up in that file;
the first point not yet listed is appended and the process kills itself with SIGKILL, as hard as a
crash gets (no ``finally``, no flush). The next worker resumes the run and dies at the next new
point, so a test walks every point of a run, one worker per point (``tests/runtime/test_kill.py``).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["ENV", "point"]

ENV = "CHRYSALIS_CRASH_POINTS"


def point(name: str) -> None:
    """Die here with SIGKILL if fault injection is on and this process has not died at ``name`` before."""
    listing = os.environ.get(ENV)
    if not listing:
        return
    path = Path(listing)
    seen = set(path.read_text(encoding="utf-8").splitlines()) if path.exists() else set()
    if name in seen:
        return
    with path.open("a", encoding="utf-8") as file:
        file.write(name + "\n")
        file.flush()
        os.fsync(file.fileno())
    os.kill(os.getpid(), signal.SIGKILL)
