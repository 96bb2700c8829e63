"""The runtime's own tables, versioned with Alembic and brought up to date by every process that opens them.

    ensure_schema(engine)   called by each store on open: one SELECT of ``alembic_version`` when the
                            schema is current (Alembic is not even imported); otherwise, under a lock,
                            the migrations in ``runtime/migrations/versions/`` are applied
    schema_revision(conn)   the revision a database is at (None: no ``alembic_version`` yet), for doctor

The lock makes any number of processes starting at once on an empty or old database end with one
schema, and none fails: on PostgreSQL a transaction-scoped advisory lock (``pg_advisory_xact_lock``,
key ``LOCK_KEY``) around the whole upgrade, whose DDL commits with it; on SQLite an exclusive
``flock`` on a lock file next to the database. The one that gets the lock first migrates; the others
then find the schema current and do nothing.

A database made before migrations existed (``create_all``, no ``alembic_version``) is adopted by the
first revision, which checks each table it finds has the columns it expects and creates the missing
ones. A database at a revision this code does not know was migrated by a newer Chrysalis: it is left
alone and every command stops with ``SchemaTooNew`` (exit 2), naming both revisions.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.config import without_password
from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

__all__ = ["HEAD", "LOCK_KEY", "MIGRATIONS", "REVISIONS", "SchemaTooNew", "ensure_schema", "schema_revision"]

MIGRATIONS = Path(__file__).with_name("migrations")
"""Alembic's script directory, shipped inside the package (``env.py`` and ``versions/``)."""
REVISIONS = ("0001", "0002")
"""Every revision in ``migrations/versions``, oldest first (a test checks it against Alembic's own reading)."""
HEAD = REVISIONS[-1]
"""The revision this code writes and reads."""
LOCK_KEY = 0x43687279_73616C01
"""The PostgreSQL advisory lock key held while migrating ("Chrysal" + 1; DBOS's own migrations use another)."""

_current: set[str] = set()
_current_lock = threading.Lock()


class SchemaTooNew(UsageError):
    """The runtime database was migrated by a newer Chrysalis than this one."""

    def __init__(self, url: str, found: str) -> None:
        super().__init__(
            f"The runtime database {url} has schema revision {found!r}, newer than this Chrysalis knows "
            f"(it writes {HEAD!r}). Upgrade chrysalis-forge on this machine (pip install -U chrysalis-forge) "
            "to the version the other machines run; nothing in the database was changed."
        )
        self.found = found


def shown_url(engine: Engine) -> str:
    """The engine's URL as the user wrote it, without the password or the driver name."""
    url = engine.url.render_as_string(hide_password=False).replace("postgresql+psycopg://", "postgresql://")
    return without_password(url)


def schema_revision(conn: Connection) -> str | None:
    """The revision in ``alembic_version``, or None when the table is missing or empty (nothing migrated yet)."""
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError, ProgrammingError

    try:
        with conn.begin_nested() if conn.in_transaction() else conn.begin():
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except (ProgrammingError, OperationalError) as exc:
        if "alembic_version" not in str(exc):  # the database itself fails: let the caller say so
            raise
        return None


def ensure_schema(engine: Engine) -> None:
    """Bring ``engine``'s runtime tables to ``HEAD`` (once per process and database).

    Raises:
        SchemaTooNew: the database is at a revision newer than this code.
        sqlalchemy.exc.OperationalError: the database cannot be reached (callers say so with ``unreachable``).
    """
    key = engine.url.render_as_string(hide_password=False)
    if key in _current:
        return
    with _current_lock:
        if key in _current:
            return
        with engine.connect() as conn:
            found = schema_revision(conn)
        if found != HEAD:
            _check_known(engine, found)
            with _locked(engine) as conn:
                _upgrade(engine, conn)
        _current.add(key)


def _check_known(engine: Engine, found: str | None) -> None:
    if found is not None and found not in REVISIONS:
        raise SchemaTooNew(shown_url(engine), found)


@contextmanager
def _locked(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that no other process migrating this database holds at the same time."""
    from sqlalchemy import text

    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            yield conn
        return
    database = engine.url.database
    if not database or database == ":memory:":  # a private database: nobody else can migrate it
        with engine.begin() as conn:
            yield conn
        return
    with open(Path(database).with_name(Path(database).name + ".migrate.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        with engine.begin() as conn:
            yield conn


def _upgrade(engine: Engine, conn: Connection) -> None:
    """Apply the migrations after the revision found now (another process may have applied them while we waited).

    When it had, the lock is let go at once. (Each process after the first used to import Alembic and
    run an empty upgrade while it held the lock: 2 to 4 s each on a loaded 2-core machine, so of six
    processes started together on an empty PostgreSQL database the last waited 11 s for its turn.)
    """
    found = schema_revision(conn)
    _check_known(engine, found)
    if found == HEAD:
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
