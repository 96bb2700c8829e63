"""Databases in the states the migration tests need; processes that start at one instant, and a service's stderr."""

from __future__ import annotations

import importlib.util
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType

from sqlalchemy import Engine, MetaData, text

from chrysalis.runtime.schema import MIGRATIONS
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD
from tests.runtime.queue_helpers import finish

__all__ = [
    "StderrLines",
    "ended",
    "first_revision",
    "home_in",
    "make_old_database",
    "release_together",
]

_WAIT_THEN_EXEC = (
    "import os, sys; os.write(int(sys.argv[1]), b'r'); os.close(int(sys.argv[1])); "
    "os.read(int(sys.argv[2]), 1); os.close(int(sys.argv[2])); "  # blocks until the test closes the other end
    "os.execv(sys.executable, [sys.executable, *sys.argv[3:]])"
)


def first_revision() -> ModuleType:
    """``versions/0001_runtime_tables.py``, whose tables are those ``create_all`` made before migrations."""
    path = MIGRATIONS / "versions" / "0001_runtime_tables.py"
    spec = importlib.util.spec_from_file_location("chrysalis_runtime_0001", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_old_database(engine: Engine, *, names: set[str]) -> None:
    """The tables ``names`` as the old ``meta.create_all(engine)`` made them (no ``alembic_version``), one run in."""
    tables = [table for table in first_revision()._tables() if table.name in names]
    meta = MetaData()
    for table in tables:
        table.to_metadata(meta)
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO runs (id, task, urgency, status, options, created_at, updated_at) "
                "VALUES ('old1', 'kept task', 'normal', 'done', '{}', 1.0, 2.0)"
            )
        )


def release_together(*commands: list[str], env: dict[str, str] | None = None) -> list[subprocess.Popen[str]]:
    """Start each ``chrysalis`` command line in its own process, all released at one instant; the processes.

    Each process says it is ready on one pipe, then blocks reading another; once all are ready the
    test closes that one's write end and they all wake together, none a Python start-up ahead.
    """
    ready_read, ready_write = os.pipe()
    go_read, go_write = os.pipe()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _WAIT_THEN_EXEC, str(ready_write), str(go_read), *CHRYSALIS[1:], *command],
            env={**os.environ, **(env or {})},
            text=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(ready_write, go_read),
        )
        for command in commands
    ]
    os.close(ready_write)
    os.close(go_read)
    got = b""
    while len(got) < len(commands):
        chunk = os.read(ready_read, len(commands))
        assert chunk, "a process ended before it was ready"
        got += chunk
    os.close(ready_read)
    os.close(go_write)  # every process reads EOF now
    return processes


def ended(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``process`` once it has ended (one that hangs is killed: ``finish``)."""
    out, err = finish(process)
    return process.returncode, out, err


class StderrLines:
    """A running process's stderr, read line by line in a thread: wait for one line, read them all at the end."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._lines.put(line)
        self._lines.put(None)

    def wait_for(self, pattern: re.Pattern[str]) -> re.Match[str]:
        """The first line that matches ``pattern`` (a process that ends or hangs without one fails the test)."""
        while True:
            line = self._lines.get(timeout=CLI_HANG_GUARD)
            said = "".join(self.seen)
            assert line is not None, f"{self.process.args!r} ended without a line like {pattern.pattern!r}: {said}"
            self.seen.append(line)
            if found := pattern.search(line):
                return found

    def rest(self) -> str:
        """Everything the process wrote on stderr, once it has ended (its pipes are closed after)."""
        self.process.wait(timeout=CLI_HANG_GUARD)
        while (line := self._lines.get(timeout=CLI_HANG_GUARD)) is not None:
            self.seen.append(line)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return "".join(self.seen)


def home_in(tmp: Path, name: str) -> dict[str, str]:
    """The environment of a fresh CHRYSALIS_HOME ``tmp/name`` (a SQLite database of its own)."""
    return {"CHRYSALIS_HOME": str(tmp / name)}
