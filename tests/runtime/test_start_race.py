"""Processes started at one instant on an empty runtime database: none fails (issue 32)."""

from __future__ import annotations

import sqlite3
import threading
import time
import types
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from chrysalis.runtime import database, dbos_tables
from chrysalis.runtime.database import open_engine
from chrysalis.runtime.dbos_tables import migrating
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

    monkeypatch.setattr(database, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=pause))
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


def test_processes_letting_dbos_migrate_take_turns_however_long_it_takes(
    postgresql_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DBOS's own lock is given up after 30 s (then two processes ran the same DDL); ours is waited for, polling."""
    engine = open_engine(postgresql_url)
    asked = threading.Event()
    """Set when the second process has been refused the lock and pauses before asking again."""
    entered = threading.Event()

    def pause(seconds: float) -> None:
        asked.set()
        threading.Event().wait(seconds)

    def second() -> None:
        with migrating(engine):
            entered.set()

    monkeypatch.setattr(dbos_tables, "time", types.SimpleNamespace(sleep=pause))
    waiter = threading.Thread(target=second)
    with migrating(engine):  # the first, migrating
        waiter.start()
        assert asked.wait(CLI_HANG_GUARD)
        assert not entered.is_set()
    waiter.join(CLI_HANG_GUARD)
    assert entered.is_set()
    engine.dispose()
