"""What one part of ``chrysalis doctor`` reports: facts, the lines a person reads, and problems with their fixes.

Every section is a function ``Settings -> Section`` listed once in ``command.SECTIONS``; the
command prints each section's lines and problems, and ``--json`` gives each section's facts with
its problems. A problem always carries the exact command or setting that fixes it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from chrysalis.config import Settings

__all__ = ["LOOPBACK_PROBE_S", "Problem", "Section", "SectionCheck", "is_loopback", "loopback_answers"]

LOOPBACK_PROBE_S = 2.0
"""Seconds doctor waits for a server on this machine to accept a connection."""


@dataclass(frozen=True)
class Problem:
    """Something that will fail, and what to run or set so it does not."""

    problem: str
    fix: str

    def to_json(self) -> dict[str, str]:
        """``{"problem", "fix"}``."""
        return {"problem": self.problem, "fix": self.fix}


@dataclass(frozen=True)
class Section:
    """One part of the report."""

    facts: dict[str, Any]
    """Plain data for ``--json``."""
    lines: list[str]
    """What the terminal shows; the first line starts with the section's name."""
    problems: list[Problem] = field(default_factory=list[Problem])

    def to_json(self) -> dict[str, Any]:
        """The facts, ``ok`` and the problems."""
        return {**self.facts, "ok": not self.problems, "problems": [p.to_json() for p in self.problems]}


SectionCheck = Callable[[Settings], Section]
"""What each entry of ``command.SECTIONS`` is."""


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine (``127.0.0.0/8``, ``::1`` or ``localhost``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_answers(url: str) -> str | None:
    """Connect (TCP only: no request, no key sent) to a loopback URL's port; None when it accepts, else why not."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=LOOPBACK_PROBE_S):
            return None
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
