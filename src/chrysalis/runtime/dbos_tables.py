"""DBOS's system tables, migrated by one process at a time however many open a new database together.

    ensure_tables(sys_db)   a client's tables up to date, with DBOS's notification trigger (``wakeup``):
                            when both are in place (the usual case), three catalog reads and no lock
    migrating(engine)       around the code that lets DBOS migrate (``ensure_tables``, ``DBOS.launch``):
                            on PostgreSQL, a lock of ours with no time limit

DBOS migrates its tables under an advisory lock of its own, but a process that has waited 30 s for it
gives up and migrates anyway, beside the one that holds it. Its migrations are many (more than 100,
some building indexes ``CONCURRENTLY``, which wait for every older transaction in the database): 7.6 s
for one process alone on a loaded 2-core machine. With DBOS's lock held for 45 s, two of three processes
migrating a new database at once failed: ``duplicate key value violates unique constraint
"pg_namespace_nspname_index"`` on ``CREATE SCHEMA "dbos"``, ``column "queue_partition_key" of relation
"workflow_status" already exists``. Our processes take this lock first, so DBOS's is free when they
ask for it; the others wait, however long the migration takes.

Waiting is polling (``pg_try_advisory_lock`` on a connection in autocommit), as DBOS's own: a statement
blocked on a lock holds a snapshot, and the migrating process's ``CREATE INDEX CONCURRENTLY`` would wait
for that statement's transaction, which waits for the migrating process: forever. SQLite needs no lock
of ours: DBOS migrates it in one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dbos._sys_db import SystemDatabase
    from sqlalchemy import Engine

__all__ = ["LOCK_KEY", "ensure_tables", "migrating"]

LOCK_KEY = 0x43687279_73616C02
"""The PostgreSQL advisory lock held while DBOS migrates ("Chrysal" + 2; our own tables' lock is + 1)."""
_POLL_S = 0.05


@contextmanager
def migrating(engine: Engine) -> Iterator[None]:
    """Hold the lock on ``engine``'s database (PostgreSQL; nothing on SQLite) for the block."""
    if engine.dialect.name != "postgresql":
        yield
        return
    from sqlalchemy import text

    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        while not conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": LOCK_KEY}).scalar():
            time.sleep(_POLL_S)
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})


def ensure_tables(sys_db: SystemDatabase) -> None:
    """Migrate a DBOS client's system tables and give them DBOS's notification trigger, unless both are there.

    The check needs no lock (and skips DBOS's connection to the server's ``postgres`` database, made
    only to create a missing one: our stores, opened first, have already said when it is missing).
    """
    from dbos._migration import should_migrate

    from chrysalis.runtime.wakeup import ensure_trigger, has_trigger

    engine = sys_db.engine
    if engine.dialect.name == "postgresql" and sys_db.schema is not None:
        if not should_migrate(engine, sys_db.schema, sys_db.use_listen_notify) and has_trigger(engine, sys_db.schema):
            return
    with migrating(engine):
        sys_db.run_migrations()  # a submit before any worker ever ran must not fail
        ensure_trigger(engine)
