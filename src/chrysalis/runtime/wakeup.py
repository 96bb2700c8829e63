"""How ``chrysalis approve`` wakes a run that waits for a decision: a DBOS message, pushed at once.

    approve   stores the signed decision, then ``DBOSClient.send(run, "decided", topic="approval:<id>")``
              (``queue.wake``): one row in DBOS's ``notifications`` table
    worker    the run waits in ``DBOS.recv_async`` on that topic; DBOS's notification listener sets its
              event as soon as the row is there: on PostgreSQL a ``LISTEN dbos_notifications_channel``
              fed by a trigger on ``dbos.notifications`` (``pg_notify`` when the row commits); on SQLite
              a look at the table every ``notification_listener_polling_interval_sec`` (0.1 s, ``worker``)

DBOS writes that trigger in its first migration only when the process migrating the database has
LISTEN/NOTIFY on. A ``DBOSClient`` (``submit``, ``approve``, ``cancel``, the HTTP service) has it off,
so a PostgreSQL database first set up by a ``submit`` had no trigger: the message was stored, nobody
was told, and the run found it only at DBOS's fallback re-check, 60 s later. ``ensure_trigger`` puts
DBOS's own trigger in place (the SQL of its migrations 1 and 20), on every database a client opens,
so new databases and ones set up before this fix both wake at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["ensure_trigger", "has_trigger"]

_TRIGGER = "dbos_notifications_trigger"
_LOCK = 0x43485259  # "CHRY": serialises the repair between processes starting at once
_FUNCTION_SQL = """
CREATE OR REPLACE FUNCTION {schema}.notifications_function() RETURNS TRIGGER AS $$
DECLARE
    payload text := NEW.destination_uuid || '::' || NEW.topic;
BEGIN
    PERFORM pg_notify('dbos_notifications_channel', payload);
    RETURN NEW;
END;
$$ LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
"""
_TRIGGER_SQL = """
CREATE TRIGGER dbos_notifications_trigger AFTER INSERT ON {schema}.notifications
FOR EACH ROW EXECUTE FUNCTION {schema}.notifications_function()
"""


def has_trigger(engine: Engine, schema: str = "dbos") -> bool:
    """Whether DBOS's ``notifications`` table pushes each new message to its listeners (always True on SQLite)."""
    from sqlalchemy import text

    if engine.dialect.name != "postgresql":
        return True
    query = text(
        "SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE t.tgname = :trigger AND c.relname = 'notifications' AND n.nspname = :schema"
    )
    with engine.connect() as conn:
        return conn.execute(query, {"trigger": _TRIGGER, "schema": schema}).first() is not None


def ensure_trigger(engine: Engine, schema: str = "dbos") -> bool:
    """Give a migrated PostgreSQL system database DBOS's notification trigger if it lacks it; True if it did.

    Cheap when it is there (one catalog query); under an advisory lock otherwise, so processes
    starting together make it once.
    """
    from sqlalchemy import text

    if has_trigger(engine, schema):
        return False
    quoted = engine.dialect.identifier_preparer.quote_identifier(schema)
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _LOCK})
        exists = conn.execute(
            text("SELECT 1 FROM pg_trigger WHERE tgname = :trigger AND tgrelid = CAST(:table AS regclass)"),
            {"trigger": _TRIGGER, "table": f"{quoted}.notifications"},
        ).first()
        if exists is not None:
            return False
        conn.execute(text(_FUNCTION_SQL.format(schema=quoted)))
        conn.execute(text(_TRIGGER_SQL.format(schema=quoted)))
    return True
