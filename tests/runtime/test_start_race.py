"""Processes started at one instant on an empty runtime database: none fails (issue 32)."""

from __future__ import annotations

import sqlite3
import threading
import types
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from chrysalis.runtime import database
from chrysalis.runtime.database import open_engine
from tests.helpers import CLI_HANG_GUARD


def test_a_new_sqlite_database_held_by_another_process_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Switching to WAL while another process writes is "database is locked" at once, busy timeout or not.

    Before, ``chrysalis approvals`` then exited 2 ("Cannot open the runtime database …: database is
    locked"); now the switch is tried again until the writer has committed.
    """
    path = tmp_path / "runtime.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # a process writing to the new file (still in rollback-journal mode)
    holder.execute("INSERT INTO t VALUES (1)")
    retrying = threading.Event()
    """Set when the opener pauses before trying again (or has given up: then the test fails at once)."""

    def pause(seconds: float) -> None:
        retrying.set()
        threading.Event().wait(seconds)

    monkeypatch.setattr(database, "time", types.SimpleNamespace(monotonic=database.time.monotonic, sleep=pause))
    engine = open_engine(f"sqlite:///{path}")
    outcome: list[object] = []

    def open_it() -> None:
        try:
            with engine.connect() as conn:
                outcome.append(conn.exec_driver_sql("PRAGMA journal_mode").scalar())
        except OperationalError as exc:
            outcome.append(exc)
            retrying.set()

    opener = threading.Thread(target=open_it)
    opener.start()
    assert retrying.wait(CLI_HANG_GUARD)
    assert outcome == []  # refused once, and trying again while the writer holds the file
    holder.execute("COMMIT")
    holder.close()
    opener.join(CLI_HANG_GUARD)
    engine.dispose()
    assert outcome == ["wal"]
