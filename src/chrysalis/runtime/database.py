"""Where the durable runtime keeps its state: one database that every worker and command shares.

SQLite under ``$CHRYSALIS_HOME`` by default, so one machine needs no server; a PostgreSQL URL in
``CHRYSALIS_DATABASE_URL`` (or ``database_url`` in the config) lets workers on many machines share
one queue, its approvals and their nonces (a nonce must be refused by every worker once any worker
used it, so it lives where they all look). The same URL will serve DBOS's system tables; ours are
plain SQLAlchemy Core tables beside them, so the code is the same on both engines.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Self

from chrysalis.config import Settings, without_password
from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["EngineStore", "database_url", "open_engine", "unreachable"]

_SQLITE_TIMEOUT_S = 30.0
"""How long a SQLite connection waits for another process's lock (its busy timeout, and the switch to WAL)."""


def database_url(settings: Settings) -> str:
    """The settings' ``database_url``, else a SQLite file under the settings' home.

    The URL comes from the config's ``database_url`` or ``CHRYSALIS_DATABASE_URL``; loading the
    settings already refused one that is neither SQLite nor PostgreSQL, naming where it came from.
    """
    return settings.database_url or f"sqlite:///{settings.home / 'runtime.sqlite'}"


def open_engine(url: str, *, connect_timeout: int | None = None) -> Engine:
    """A SQLAlchemy engine for ``url``; PostgreSQL through psycopg 3, SQLite with WAL and a busy timeout.

    ``connect_timeout`` bounds, in seconds, how long a PostgreSQL connection may take to open
    (``chrysalis doctor`` sets it; libpq's default is to wait as long as the network does).
    """
    from sqlalchemy import create_engine, event

    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        connect_args: dict[str, float] = {"timeout": _SQLITE_TIMEOUT_S}
    else:
        connect_args = {} if connect_timeout is None else {"connect_timeout": connect_timeout}
    engine = create_engine(url, connect_args=connect_args)
    if url.startswith("sqlite"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)

        @event.listens_for(engine, "connect")
        def _wal(connection: sqlite3.Connection, _record: object) -> None:  # several processes write: WAL
            _use_wal(connection)

    return engine


def _use_wal(connection: sqlite3.Connection) -> None:
    """Put a SQLite database in write-ahead logging, trying again while another process writes to it.

    The switch takes the write lock, and while another process holds it (writing to the new file,
    still in rollback-journal mode) SQLite answers "database is locked" at once, busy timeout or not:
    waiting could deadlock. Processes started together on a new ``runtime.sqlite`` meet this (before,
    one of 48 ``approvals``/``approve`` started six at a time exited 2: "Cannot open the runtime
    database …: database is locked"). The stores' ``Database`` does the same for ``chrysalis.db``;
    importing it here would load every store.

    Raises:
        sqlite3.OperationalError: still locked after ``_SQLITE_TIMEOUT_S``, or another failure.
    """
    deadline = time.monotonic() + _SQLITE_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class EngineStore:
    """Tables of the runtime's database behind one engine, closed with the store (``with`` closes it)."""

    engine: Engine

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def unreachable(url: str, error: BaseException) -> UsageError:
    """The clear error for a runtime database that cannot be opened (the URL shown without its password)."""
    reason = without_password(str(getattr(error, "orig", None) or error)).strip().splitlines()[0]
    return UsageError(
        f"Cannot open the runtime database {without_password(url)}: {reason}. Start it, or fix "
        "CHRYSALIS_DATABASE_URL or database_url (`chrysalis config show` says where)."
    )
