"""Run one slow set-up step for the Makefile and show that it is alive (standard library only).

``make setup`` installs the dependencies and builds llama.cpp from source, which takes minutes
and prints nothing useful on its own. This wrapper prints the step's title, sends the command's
output to a log file, and while the command runs it says how long it has been going (and, when
the build prints them, how many build steps are done): on a terminal one line redrawn every
second, elsewhere (CI, pipes) a plain line every 30 seconds. At the end it prints "done in …",
or, on failure, the last lines of the log and where the rest is.

Usage (from the Makefile)::

    python scripts/setup_step.py --title "building …" --activity building --log .venv/x.log -- pip install …

It runs before the package is installed, so it imports nothing but the standard library.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TextIO

__all__ = ["BuildSteps", "format_elapsed", "main", "run_step"]

TTY_EVERY = 1.0
"""Seconds between redraws of the status line on a terminal."""
PLAIN_EVERY = 30.0
"""Seconds between heartbeat lines when the output is not a terminal (CI logs stay short)."""
TAIL = 30
"""Lines of the log shown when the command fails."""

# Build tools report how far they are: ninja "[12/98] Building CXX …", make "[ 45%] Building …".
_NINJA = re.compile(r"^\s*\[(\d+)/(\d+)\]\s")
_MAKE = re.compile(r"^\s*\[\s*(\d+)%\]\s")


class BuildSteps:
    """The latest progress seen in a command's output, as a short phrase (thread-safe).

    Build markers (ninja's ``[12/98]``, make's ``[ 45%]``) win; before the first one, pip's
    ``Collecting …`` lines are counted.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._phrase = ""
        self._collected = 0
        self._building = False

    def feed(self, line: str) -> None:
        """Look at one output line for a ninja or make progress marker, or pip's ``Collecting``."""
        if match := _NINJA.match(line):
            phrase = f"build step {match[1]}/{match[2]}"
        elif match := _MAKE.match(line):
            phrase = f"build {match[1]}% done"
        elif line.startswith("Collecting ") and not self._building:
            self._collected += 1
            phrase = f"{self._collected} packages collected"
        else:
            return
        with self._lock:
            self._building = self._building or phrase.startswith("build")
            self._phrase = phrase

    @property
    def phrase(self) -> str:
        """``build step 12/98``, ``build 45% done`` or ``12 packages collected``; empty until one is seen."""
        with self._lock:
            return self._phrase


def format_elapsed(seconds: float) -> str:
    """``42s`` under a minute, ``1m30s`` after."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m{whole % 60:02d}s"


def _pump(stream: IO[str], log: TextIO, steps: BuildSteps, tail: deque[str]) -> None:
    for line in stream:
        log.write(line)
        log.flush()
        steps.feed(line)
        tail.append(line.rstrip("\n"))


def run_step(
    command: Sequence[str],
    *,
    title: str,
    log_path: Path,
    out: TextIO,
    tty: bool,
    activity: str = "working",
    every: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Run ``command`` with its output in ``log_path``, reporting on ``out``; return its exit code.

    Args:
        command: The program and its arguments.
        title: What the step does, printed first as ``>> title``.
        log_path: Where the command's output (stdout and stderr) goes.
        out: Where the title, heartbeats and the result go.
        tty: Redraw one status line in place (a terminal) instead of printing heartbeat lines.
        activity: The verb of the heartbeat: ``still building… 1m30s``.
        every: Seconds between heartbeats; default 1 on a terminal, 30 elsewhere.
        clock: Monotonic seconds; tests pass a fake one so the reported times are fixed.
    """
    interval = every if every is not None else (TTY_EVERY if tty else PLAIN_EVERY)
    started = clock()
    out.write(f">> {title}\n")
    out.flush()
    tail: deque[str] = deque(maxlen=TAIL)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w", encoding="utf-8") as log:
        if cmake_args := os.environ.get("CMAKE_ARGS"):
            log.write(f"CMAKE_ARGS={cmake_args}\n")
        log.write(f"$ {' '.join(command)}\n")
        log.flush()
        try:
            proc = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
        except OSError as exc:
            out.write(f"   could not start {command[0]}: {exc}\n")
            return 127
        with proc:  # closes the pipe and reaps the process however this ends
            try:
                code = _watch(
                    proc, log, tail, out, tty=tty, activity=activity, interval=interval, since=started, clock=clock
                )
            except KeyboardInterrupt:
                proc.terminate()
                out.write("\n   interrupted\n" if tty else "   interrupted\n")
                return 130
    elapsed = format_elapsed(clock() - started)
    if tty:
        out.write("\r\033[K")
    if code == 0:
        out.write(f"   done in {elapsed}\n")
    else:
        out.write(f"   failed after {elapsed} (exit {code}); the last lines of {log_path}:\n")
        out.writelines(f"   | {line}\n" for line in tail)
    out.flush()
    return code


def _watch(
    proc: subprocess.Popen[str],
    log: TextIO,
    tail: deque[str],
    out: TextIO,
    *,
    tty: bool,
    activity: str,
    interval: float,
    since: float,
    clock: Callable[[], float],
) -> int:
    """Copy the output to the log and print a heartbeat every ``interval`` seconds; the exit code."""
    assert proc.stdout is not None  # stdout=PIPE
    steps = BuildSteps()
    reader = threading.Thread(target=_pump, args=(proc.stdout, log, steps, tail), daemon=True)
    reader.start()
    try:
        while True:
            reader.join(interval)  # the heartbeat's timer: returns at once when the output ends
            if not reader.is_alive():
                return proc.wait()
            status = f"   still {activity}… {format_elapsed(clock() - since)}"
            if steps.phrase:
                status += f" ({steps.phrase})"
            out.write(f"\r{status}\033[K" if tty else f"{status}\n")
            out.flush()
    finally:
        if reader.is_alive():  # interrupted: let the reader drain before the log closes
            proc.terminate()
            reader.join(5)


def _interactive() -> bool:
    """A terminal that can redraw a line: not a pipe, not TERM=dumb, not CI (which may fake a terminal)."""
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb" and not in_ci


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``--title/--log/--activity/--every -- COMMAND…`` and run the step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--title", required=True)
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--activity", default="working")
    parser.add_argument("--every", type=float, default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    return run_step(
        command,
        title=args.title,
        log_path=args.log,
        out=sys.stdout,
        tty=_interactive(),
        activity=args.activity,
        every=args.every,
    )


if __name__ == "__main__":
    sys.exit(main())
