"""The durable runs as people see them: what was asked, how urgent, where it stands, what it said.

DBOS keeps the workflows (their inputs, step records, queue and recovery); these tables keep what
``chrysalis queue`` and ``show`` print and what DBOS has no word for:

    runs          one row per submitted task: its options, urgency, status (``queued``, ``running``,
                  ``waiting_approval``, ``done``, ``failed``, ``cancelled``) and result; the schedule and
                  slot that submitted it, if one did (``runtime/schedules.py``)
    run_events    the run's events in order; each has a key that the replayed run computes again, so a
                  resumed run does not write an event twice (``(run_id, key)`` is unique)
    run_effects   one row per tool effect started: a worker that finds a started effect with no recorded
                  result knows the effect was interrupted by a crash (``runtime/durable.py`` decides what then)
    workers       each worker's heartbeat, so another worker can tell it died and recover its runs
    schedule_cursors  per event trigger, the last ``run_events`` position it has looked at
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError
from chrysalis.runtime.database import EngineStore
from chrysalis.runtime.schema import ensure_schema

if TYPE_CHECKING:
    from sqlalchemy import Engine, MetaData, Table

__all__ = ["STATUSES", "URGENCIES", "RunRecord", "RunStore", "WorkerRecord"]

URGENCIES = ("critical", "high", "normal", "low", "idle")
"""Seed 002's five levels, most urgent first; the index + 1 is the DBOS priority (lower runs first)."""
STATUSES = ("queued", "running", "waiting_approval", "done", "failed", "cancelled")
FINISHED = frozenset({"done", "failed", "cancelled"})


@dataclass(frozen=True)
class RunRecord:
    """One submitted run."""

    id: str
    task: str
    urgency: str
    status: str
    options: dict[str, Any]
    created_at: float
    updated_at: float
    worker: str | None
    result: dict[str, Any] | None
    error: str | None
    schedule: str | None = None
    """The schedule that submitted the run (``chrysalis schedule``), None for a run someone submitted."""
    slot: str | None = None
    """The time it was submitted for (ISO 8601, UTC): the cron slot, or the time of the event that triggered it."""

    @property
    def finished(self) -> bool:
        """Whether the run has ended (done, failed or cancelled)."""
        return self.status in FINISHED

    def to_json(self) -> dict[str, Any]:
        """What ``chrysalis queue --json`` and ``show --json`` print for it."""
        return {
            "id": self.id,
            "status": self.status,
            "urgency": self.urgency,
            "task": self.task,
            "workspace": self.options.get("workspace"),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "worker": self.worker,
            "result": self.result,
            "error": self.error,
            "schedule": self.schedule,
            "slot": self.slot,
        }


@dataclass(frozen=True)
class WorkerRecord:
    """A worker as its heartbeat shows it."""

    id: str
    host: str
    pid: int
    heartbeat_at: float
    stopped: bool
    recovered_by: str | None


class RunStore(EngineStore):
    """The ``runs``, ``run_events``, ``run_effects`` and ``workers`` tables of one database."""

    def __init__(self, engine: Engine) -> None:
        """Use ``engine`` (``database.open_engine``); its tables are migrated to this code's revision if behind."""
        from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text, UniqueConstraint

        self.engine = engine
        meta = MetaData()
        self._runs: Table = Table(
            "runs",
            meta,
            Column("id", String(64), primary_key=True),
            Column("task", Text, nullable=False),
            Column("urgency", String(16), nullable=False),
            Column("status", String(24), nullable=False),
            Column("options", Text, nullable=False),
            Column("created_at", Float, nullable=False),
            Column("updated_at", Float, nullable=False),
            Column("worker", String(64)),
            Column("result", Text),
            Column("error", Text),
            Column("schedule", String(64)),
            Column("slot", String(40)),
        )
        self._events: Table = Table(
            "run_events",
            meta,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column("run_id", String(64), nullable=False),
            Column("key", String(64), nullable=False),
            Column("at", Float, nullable=False),
            Column("event", Text, nullable=False),
            UniqueConstraint("run_id", "key"),
        )
        self._effects, self._workers, self._cursors = _side_tables(meta)
        ensure_schema(engine)

    # runs

    def add(
        self, run_id: str, task: str, urgency: str, options: Mapping[str, Any], *, origin: tuple[str, str] | None = None
    ) -> RunRecord:
        """Record a submitted run as ``queued`` (``origin``: the schedule and slot that submitted it)."""
        now = time.time()
        row = {
            "id": run_id,
            "task": task,
            "urgency": urgency,
            "status": "queued",
            "options": json.dumps(dict(options)),
            "created_at": now,
            "updated_at": now,
            "worker": None,
            "result": None,
            "error": None,
            "schedule": origin[0] if origin else None,
            "slot": origin[1] if origin else None,
        }
        with self.engine.begin() as conn:
            conn.execute(self._runs.insert().values(**row))
        return self._run(row)

    def add_once(
        self, run_id: str, task: str, urgency: str, options: Mapping[str, Any], *, origin: tuple[str, str]
    ) -> RunRecord:
        """``add``, or the run already recorded under ``run_id`` (a schedule's slot submitted again)."""
        from sqlalchemy.exc import IntegrityError

        try:
            return self.add(run_id, task, urgency, options, origin=origin)
        except IntegrityError:
            return self.get(run_id)

    def get(self, run_id: str) -> RunRecord:
        """The run ``run_id``.

        Raises:
            UsageError: there is none (the message says how to list them).
        """
        from sqlalchemy import select

        with self.engine.connect() as conn:
            row = conn.execute(select(self._runs).where(self._runs.c.id == run_id)).first()
        if row is None:
            raise UsageError(f"No run {run_id!r}: `chrysalis queue` lists the runs.")
        return self._run(dict(row._mapping))

    def all(self, *, limit: int = 200, statuses: Collection[str] = ()) -> list[RunRecord]:
        """The latest ``limit`` runs, newest first; only those in ``statuses`` when it names any."""
        from sqlalchemy import select

        query = select(self._runs).order_by(self._runs.c.created_at.desc()).limit(limit)
        if statuses:
            query = query.where(self._runs.c.status.in_(sorted(statuses)))
        with self.engine.connect() as conn:
            return [self._run(dict(row._mapping)) for row in conn.execute(query)]

    def set_status(self, run_id: str, status: str, **fields: Any) -> None:
        """Move ``run_id`` to ``status`` (a finished run stays finished), with ``worker``, ``result`` or ``error``."""
        values: dict[str, Any] = {"status": status, "updated_at": time.time()}
        if "worker" in fields:
            values["worker"] = fields["worker"]
        if "result" in fields:
            values["result"] = json.dumps(fields["result"])
        if "error" in fields:
            values["error"] = fields["error"]
        unfinished = self._runs.c.status.notin_(FINISHED)
        with self.engine.begin() as conn:
            conn.execute(self._runs.update().where(self._runs.c.id == run_id, unfinished).values(**values))

    # events

    def add_event(self, run_id: str, key: str, event: Mapping[str, Any]) -> bool:
        """Append ``event`` unless this run already has one under ``key`` (a replay); True when written."""
        from sqlalchemy.exc import IntegrityError

        try:
            with self.engine.begin() as conn:
                conn.execute(
                    self._events.insert().values(
                        run_id=run_id, key=key, at=time.time(), event=json.dumps(dict(event), default=str)
                    )
                )
        except IntegrityError:
            return False
        return True

    def events(self, run_id: str, *, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
        """The run's events after position ``after``, in order, each with its position."""
        from sqlalchemy import select

        e = self._events.c
        query = select(e.id, e.event).where(e.run_id == run_id, e.id > after).order_by(e.id)
        with self.engine.connect() as conn:
            return [(row.id, json.loads(row.event)) for row in conn.execute(query)]

    def event_texts(self, run_id: str, *, key_prefix: str = "") -> list[tuple[int, str, str]]:
        """The run's events as stored (position, key, JSON text), in order, those whose key starts with ``key_prefix``.

        Unparsed, for a reader that must say which row is damaged rather than fail on it
        (``chrysalis provenance verify`` on a database someone edited).
        """
        from sqlalchemy import select

        e = self._events.c
        query = select(e.id, e.key, e.event).where(e.run_id == run_id).order_by(e.id)
        if key_prefix:
            query = query.where(e.key.startswith(key_prefix, autoescape=True))
        with self.engine.connect() as conn:
            return [(row.id, row.key, row.event) for row in conn.execute(query)]

    def events_after(self, after: int, *, before: float, limit: int = 200) -> list[tuple[int, float, Any, str | None]]:
        """Every run's events after position ``after`` logged before ``before``: (position, time, event, schedule)."""
        from sqlalchemy import select

        e, r = self._events.c, self._runs.c
        query = (
            select(e.id, e.at, e.event, r.schedule)
            .select_from(self._events.outerjoin(self._runs, e.run_id == r.id))
            .where(e.id > after, e.at <= before)
            .order_by(e.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(row.id, row.at, json.loads(row.event), row.schedule) for row in conn.execute(query)]

    def last_event(self) -> int:
        """The position of the latest event of any run (0: none yet); event triggers' cursors start there."""
        from sqlalchemy import func, select

        with self.engine.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(self._events.c.id), 0))).scalar_one())

    def cursor(self, schedule: str) -> int | None:
        """The last event position the trigger ``schedule`` has looked at (None: no cursor)."""
        from sqlalchemy import select

        c = self._cursors.c
        with self.engine.connect() as conn:
            return conn.execute(select(c.after).where(c.schedule == schedule)).scalar()

    def start_cursor(self, schedule: str, after: int) -> None:
        """Give the new trigger ``schedule`` its cursor: it looks at events after position ``after``."""
        with self.engine.begin() as conn:
            conn.execute(self._cursors.insert().values(schedule=schedule, after=after))

    def move_cursor(self, schedule: str, after: int) -> None:
        """Move the trigger's cursor on to ``after``; it never goes back (two firings may overlap)."""
        c = self._cursors.c
        with self.engine.begin() as conn:
            conn.execute(self._cursors.update().where(c.schedule == schedule, c.after < after).values(after=after))

    def drop_cursor(self, schedule: str) -> None:
        """Forget the trigger's cursor (it was removed)."""
        with self.engine.begin() as conn:
            conn.execute(self._cursors.delete().where(self._cursors.c.schedule == schedule))

    # effects

    def effect_started(self, run_id: str, key: str) -> dict[str, str | None] | None:
        """The pre-image recorded when effect ``key`` started (path → text, None: no such file), or None."""
        from sqlalchemy import select

        f = self._effects.c
        with self.engine.connect() as conn:
            row = conn.execute(select(f.preimage).where(f.run_id == run_id, f.key == key)).first()
        return None if row is None else dict(json.loads(row.preimage))

    def start_effect(self, run_id: str, key: str, tool: str, preimage: Mapping[str, str | None]) -> None:
        """Record that effect ``key`` (a call of ``tool``) starts now, with the files it may change as they are."""
        with self.engine.begin() as conn:
            conn.execute(self._effects.delete().where(self._effects.c.run_id == run_id, self._effects.c.key == key))
            conn.execute(
                self._effects.insert().values(
                    run_id=run_id, key=key, tool=tool, started_at=time.time(), preimage=json.dumps(dict(preimage))
                )
            )

    # workers

    def heartbeat(self, worker_id: str, host: str, pid: int) -> None:
        """Say that ``worker_id`` is alive now."""
        w = self._workers.c
        with self.engine.begin() as conn:
            updated = conn.execute(self._workers.update().where(w.id == worker_id).values(heartbeat_at=time.time()))
            if updated.rowcount == 0:
                conn.execute(
                    self._workers.insert().values(
                        id=worker_id, host=host, pid=pid, heartbeat_at=time.time(), stopped=False, recovered_by=None
                    )
                )

    def stopped(self, worker_id: str) -> None:
        """Say that ``worker_id`` stopped cleanly (it has nothing for anyone to recover)."""
        with self.engine.begin() as conn:
            conn.execute(self._workers.update().where(self._workers.c.id == worker_id).values(stopped=True))

    def workers(self) -> list[WorkerRecord]:
        """Every worker that ever beat, most recent first."""
        from sqlalchemy import select

        query = select(self._workers).order_by(self._workers.c.heartbeat_at.desc())
        with self.engine.connect() as conn:
            return [
                WorkerRecord(r.id, r.host, r.pid, r.heartbeat_at, bool(r.stopped), r.recovered_by)
                for r in conn.execute(query)
            ]

    def claim(self, dead_worker: str, by: str) -> bool:
        """Take over ``dead_worker``'s runs; True for exactly one claimant, however many workers try at once."""
        w = self._workers.c
        with self.engine.begin() as conn:
            done = conn.execute(
                self._workers.update().where(w.id == dead_worker, w.recovered_by.is_(None)).values(recovered_by=by)
            )
        return bool(done.rowcount == 1)

    @staticmethod
    def _run(row: Mapping[str, Any]) -> RunRecord:
        result = json.loads(row["result"]) if row["result"] else None
        return RunRecord(
            row["id"],
            row["task"],
            row["urgency"],
            row["status"],
            json.loads(row["options"]),
            row["created_at"],
            row["updated_at"],
            row["worker"],
            result,
            row["error"],
            row["schedule"],
            row["slot"],
        )


def _side_tables(meta: MetaData) -> tuple[Table, Table, Table]:
    """``run_effects``, ``workers`` and ``schedule_cursors``."""
    from sqlalchemy import Boolean, Column, Float, Integer, String, Table, Text

    effects = Table(
        "run_effects",
        meta,
        Column("run_id", String(64), primary_key=True),
        Column("key", String(64), primary_key=True),
        Column("tool", String(128), nullable=False),
        Column("preimage", Text, nullable=False),
        Column("started_at", Float, nullable=False),
    )
    workers = Table(
        "workers",
        meta,
        Column("id", String(64), primary_key=True),
        Column("host", String(255), nullable=False),
        Column("pid", Integer, nullable=False),
        Column("heartbeat_at", Float, nullable=False),
        Column("stopped", Boolean, nullable=False, default=False),
        Column("recovered_by", String(64)),
    )
    cursors = Table(
        "schedule_cursors",
        meta,
        Column("schedule", String(64), primary_key=True),
        Column("after", Integer, nullable=False),
    )
    return effects, workers, cursors
