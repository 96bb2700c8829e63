"""``chrysalis doctor``'s database section: the SQLite files under ``$CHRYSALIS_HOME`` and the runtime's database.

Doctor looks without changing anything: each SQLite file is opened read-only (no migration, no
switch to WAL, no file created), so running it on a broken home cannot make it worse. It reports
whether the file opens, its journal mode (the stores switch to WAL on every open, so ``delete``
only means no run opened it yet), its schema version against the one this Chrysalis writes, and its
size with the write-ahead log. A missing file is no problem: the first run makes it. For the
runtime's database it shows the schema revision (``alembic_version``) against this code's
(``runtime.schema.HEAD``): behind is no problem (the next process to open it migrates it), newer is
(every runtime command stops with exit 2 until chrysalis-forge is upgraded). A PostgreSQL
``database_url`` is the one place doctor connects to another machine, because the user named it
for exactly that; the connection gives up after ``PG_CONNECT_S``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from chrysalis.cli.doctor.sections import Problem, Section
from chrysalis.config import Settings, without_password
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.schema import HEAD, REVISIONS
from chrysalis.stores.db import SCHEMA_VERSION

__all__ = ["PG_CONNECT_S", "database_section"]

PG_CONNECT_S = 5
"""Seconds doctor waits for a configured PostgreSQL server."""
_URL_FIX = "start the database server, or fix CHRYSALIS_DATABASE_URL / database_url (chrysalis config show says where)"


def database_section(settings: Settings) -> Section:
    """The stores' ``chrysalis.db`` and the runtime's database (its own SQLite file, or PostgreSQL when configured)."""
    stores, problems = _sqlite(settings.db_path, schema=True)
    url = database_url(settings)
    if url.startswith("sqlite"):
        runtime, more = _sqlite(Path(url.removeprefix("sqlite:///")), schema=False)
    else:
        runtime, more = _postgres(url)
    runtime["url"] = without_password(url)
    more += _revision_problems(runtime)
    runtime["source"] = settings.sources.get("database_url", "default")
    lines = [
        "database:",
        f"  stores: {_describe(stores)}",
        f"  runtime: {runtime['url']} ({runtime['source']}): {_describe(runtime)}",
    ]
    return Section({"stores": stores, "runtime": runtime}, lines, problems + more)


def _sqlite(path: Path, *, schema: bool) -> tuple[dict[str, Any], list[Problem]]:
    facts: dict[str, Any] = {"path": str(path), "exists": path.is_file()}
    if not facts["exists"]:
        return ({} if schema else {"schema_revision": None}) | facts, []
    wal = path.with_name(path.name + "-wal")
    facts["bytes"] = path.stat().st_size + (wal.stat().st_size if wal.is_file() else 0)
    aside = f"mv {path} {path}.bad (a fresh one is made on the next run; the old data stays in the .bad file)"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2)
        try:
            facts["journal_mode"] = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if schema:
                facts["schema_version"] = _schema_version(conn)
            else:
                facts["schema_revision"] = _revision(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        facts["opens"] = False
        return facts, [Problem(f"{path} does not open as a SQLite database ({exc})", aside)]
    facts["opens"] = True
    if schema:
        facts["schema_expected"] = SCHEMA_VERSION
        found = facts["schema_version"]
        if found is not None and found > SCHEMA_VERSION:
            return facts, [
                Problem(
                    f"{path} has schema version {found}, newer than this Chrysalis knows ({SCHEMA_VERSION})",
                    f"upgrade chrysalis-forge, or {aside}",
                )
            ]
    return facts, []


def _schema_version(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.OperationalError:  # no such table: not migrated yet
        return None
    return None if row is None else int(row[0])


def _revision(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.OperationalError:  # no such table: no process opened the runtime yet
        return None
    return None if row is None else str(row[0])


def _revision_problems(facts: dict[str, Any]) -> list[Problem]:
    """The runtime schema's revision against this code's; a newer one stops every runtime command."""
    if "schema_revision" not in facts:
        return []
    found = facts["schema_revision"]
    facts["schema_head"] = HEAD
    facts["schema_behind"] = found != HEAD and (found is None or found in REVISIONS)
    if found is None or found in REVISIONS:
        return []
    return [
        Problem(
            f"the runtime database {facts['url']} has schema revision {found!r}, newer than this Chrysalis "
            f"knows ({HEAD!r}): submit, worker, queue and approve stop (exit 2) rather than touch it",
            "upgrade chrysalis-forge on this machine (pip install -U chrysalis-forge) to the version that migrated it",
        )
    ]


def _postgres(url: str) -> tuple[dict[str, Any], list[Problem]]:
    from sqlalchemy import text

    from chrysalis.runtime.schema import schema_revision

    engine = open_engine(url, connect_timeout=PG_CONNECT_S)
    try:
        with engine.connect() as conn:
            version = conn.execute(text("SHOW server_version")).scalar()
            revision = schema_revision(conn)
    except Exception as exc:  # any driver error: the server is down, refuses us, or the URL is wrong
        reason = without_password(str(getattr(exc, "orig", None) or exc)).strip().splitlines()[0]
        return {"connects": False}, [Problem(f"cannot connect to {without_password(url)}: {reason}", _URL_FIX)]
    finally:
        engine.dispose()
    return {"connects": True, "server_version": str(version), "schema_revision": revision}, []


def _describe(facts: dict[str, Any]) -> str:
    if "connects" in facts:
        if not facts["connects"]:
            return "does not connect"
        return f"PostgreSQL {facts['server_version']}, connects{_describe_revision(facts)}"
    if not facts["exists"]:
        return f"{facts['path']} not made yet (the first run makes it)"
    size = f"{facts['bytes'] / (1 << 20):.1f} MiB"
    if not facts["opens"]:
        return f"{facts['path']} does NOT open ({size})"
    schema = _describe_revision(facts)
    if "schema_expected" in facts:
        schema = f", schema {facts['schema_version']} (this Chrysalis writes {facts['schema_expected']})"
    return f"{facts['path']}: opens, {facts['journal_mode'].upper()}{schema}, {size}"


def _describe_revision(facts: dict[str, Any]) -> str:
    if "schema_head" not in facts:
        return ""
    found, head = facts["schema_revision"], facts["schema_head"]
    if found == head:
        return f", schema revision {found} (current)"
    if facts["schema_behind"]:
        return f", schema revision {found or 'none yet'} (behind {head}: the next process to open it migrates it)"
    return f", schema revision {found} (NEWER than {head})"
