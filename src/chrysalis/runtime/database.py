"""Where the durable runtime keeps its state: one database that every worker and command shares.

SQLite under ``$CHRYSALIS_HOME`` by default, so one machine needs no server; a PostgreSQL URL in
``CHRYSALIS_DATABASE_URL`` lets workers on many machines share one queue, its approvals and their
nonces (a nonce must be refused by every worker once any worker used it, so it lives where they all
look). The same URL will serve DBOS's system tables; ours are plain SQLAlchemy Core tables beside
them, so the code is the same on both engines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import ConfigError

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["DATABASE_ENV", "database_url", "open_engine"]

DATABASE_ENV = "CHRYSALIS_DATABASE_URL"
_SCHEMES = ("sqlite", "postgresql")


def database_url(home: Path) -> str:
    """``CHRYSALIS_DATABASE_URL``, else a SQLite file under ``home``.

    Raises:
        ConfigError: the URL's scheme is neither ``sqlite`` nor ``postgresql`` (named, with an example).
    """
    url = os.environ.get(DATABASE_ENV, "").strip()
    if not url:
        return f"sqlite:///{home / 'runtime.sqlite'}"
    scheme = url.partition(":")[0].partition("+")[0]
    if scheme not in _SCHEMES:
        raise ConfigError(f"{DATABASE_ENV}: the scheme {scheme!r} is not supported; use sqlite:///PATH or "
                          "postgresql://USER:PASSWORD@HOST/DB, e.g. postgresql://chrysalis@localhost/db.")  # fmt: skip
    return url


def open_engine(url: str) -> Engine:
    """A SQLAlchemy engine for ``url``; PostgreSQL through psycopg 3, SQLite with WAL and a busy timeout."""
    from sqlalchemy import create_engine, event

    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    if url.startswith("sqlite"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)

        @event.listens_for(engine, "connect")
        def _wal(connection: object, _record: object) -> None:  # several processes write: WAL, as the stores do
            cursor = connection.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

    return engine
