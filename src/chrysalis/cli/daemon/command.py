"""``chrysalis daemon start|stop|status``: the warm process that ``chrysalis run`` hands its runs to."""

from __future__ import annotations

import json
import time

from rich.console import Console

from chrysalis.cli.daemon.client import daemon_status, start_daemon, stop_daemon
from chrysalis.cli.daemon.wire import log_path
from chrysalis.config import chrysalis_home
from chrysalis.errors import EXIT_FAILED, EXIT_OK, UsageError

__all__ = ["daemon_start_command", "daemon_status_command", "daemon_stop_command"]

_START_WAIT_SECONDS = 120.0
"""How long ``start`` waits for the new daemon to answer (its imports take a second or two; a busy machine more)."""


def daemon_start_command(idle_minutes: str | None) -> int:
    """Start the daemon (or report the one running) and wait until it answers."""
    home = chrysalis_home()
    idle = _idle_seconds(idle_minutes)
    running = daemon_status(home)
    console = Console(highlight=False, soft_wrap=True)
    if running is None:
        process = start_daemon(home, idle=idle, wait=_START_WAIT_SECONDS)
        running = daemon_status(home)
        if running is None:
            code = process.poll()
            ended = f"it exited with code {code}" if code is not None else "it did not answer in time"
            console.print(f"The daemon did not start: {ended}. See {log_path(home)}.")
            return EXIT_FAILED
        console.print(f"Daemon started (pid {running['pid']}) for {home}; `chrysalis run` now starts warm.")
    else:
        console.print(f"The daemon already runs (pid {running['pid']}) for {home}.")
    return EXIT_OK


def daemon_stop_command() -> int:
    """Stop the daemon if one runs; runs it started finish on their own."""
    home = chrysalis_home()
    pid = stop_daemon(home)
    Console(highlight=False, soft_wrap=True).print(f"Daemon {pid} stopped." if pid else f"No daemon runs for {home}.")
    return EXIT_OK


def daemon_status_command(*, json_output: bool) -> int:
    """Print the daemon's state; exit 1 when none runs, so scripts can test it."""
    home = chrysalis_home()
    status = daemon_status(home)
    if json_output:
        print(json.dumps({"running": status is not None, "home": str(home), **(status or {})}))
    elif status is None:
        Console(highlight=False, soft_wrap=True).print(
            f"No daemon runs for {home}. Start one with `chrysalis daemon start`."
        )
    else:
        up = time.time() - float(status["started_at"])
        Console(highlight=False, soft_wrap=True).print(
            f"Daemon pid {status['pid']} for {home}: up {up:.0f}s, served {status['served']} runs, "
            f"exits after {float(status['idle_seconds']) / 60:g} idle minutes."
        )
    return EXIT_OK if status is not None else EXIT_FAILED


def _idle_seconds(minutes: str | None) -> float | None:
    if minutes is None:
        return None
    try:
        value = float(minutes)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise UsageError(f"--idle {minutes!r}: give a positive number of minutes, e.g. --idle 60.")
    return value * 60
