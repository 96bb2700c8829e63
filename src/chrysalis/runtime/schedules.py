"""Scheduled runs: a task submitted on a cron schedule, or once per matching run event, by the workers.

A schedule is a DBOS schedule (``DBOSClient.create_schedule``) of the workflow ``SCHEDULE_WORKFLOW``;
its context holds what to submit (task, run options, urgency). Every ``chrysalis worker`` runs DBOS's
scheduler, which looks at the schedules every ``POLL_S`` and, at each slot, enqueues one workflow
whose id DBOS derives from the schedule and the slot: a slot is one workflow however many workers
fire it. That workflow (``fire``) submits the task in one recorded step, under a run id derived from
the schedule and the slot (``run_id``), and submitting an id already there changes nothing; so a
crash after the submission, or a second firing of the slot, cannot queue the task twice.

An event trigger (``--on EVENT``) is a schedule firing every second whose workflow reads the run
events logged since its cursor (``schedule_cursors``), submits once per matching event (run id from
the event's position), then moves the cursor on. Events of the runs it submitted itself do not count.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError
from chrysalis.runtime.cron import check_cron
from chrysalis.runtime.queue import APP_NAME, check_task, client, enqueue_once, priority

if TYPE_CHECKING:
    from dbos import DBOSClient

    from chrysalis.runtime.runs import RunStore

__all__ = ["POLL_S", "SCHEDULE_WORKFLOW", "Schedule", "add", "listed", "register", "remove", "run_id", "serving"]

SCHEDULE_WORKFLOW = "chrysalis.schedule"
POLL_S = 1.0
"""How often each worker's DBOS scheduler looks for added and removed schedules (DBOS's default: 30 s)."""
SETTLE_S = 5.0
"""An event trigger reads only events logged at least this long ago. On PostgreSQL an event's position comes
from a sequence when its insert starts, so a later position can commit first; reading past it would skip
the earlier one for good. An event's insert is one short transaction, so after 5 s every position below
a settled one has committed (or never will)."""
_EVERY_SECOND = "* * * * * *"
_EVENTS_PER_FIRING = 200
_EVENT = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True, kw_only=True)
class Schedule:
    """One schedule: what it submits, and when (``cron``) or on which event (``on``)."""

    id: str
    task: str
    urgency: str
    options: dict[str, Any] = field(default_factory=dict)
    """The run options given (``submit``'s flags), as a queued run keeps them."""
    cron: str | None = None
    on: str | None = None
    added_at: float = 0.0
    """When ``schedule add`` stored it (the list's order)."""

    def to_json(self) -> dict[str, Any]:
        """What ``chrysalis schedule list --json`` prints for it."""
        return {
            "id": self.id,
            "cron": self.cron,
            "on": self.on,
            "task": self.task,
            "workspace": self.options.get("workspace"),
            "urgency": self.urgency,
        }

    def context(self) -> dict[str, Any]:
        """The DBOS schedule's context: everything ``fire`` needs."""
        return {**self.to_json(), "options": self.options, "added_at": self.added_at}

    @classmethod
    def of(cls, context: dict[str, Any]) -> Schedule:
        """The schedule whose context is ``context``."""
        keys = ("id", "task", "urgency", "options", "cron", "on", "added_at")
        return cls(**{key: context[key] for key in keys if key in context})


def add(url: str, runs: RunStore, task: str, options: dict[str, Any], urgency: str, *, when: str) -> Schedule:
    """Store a schedule; ``when`` is a cron expression, or ``on:EVENT`` for an event trigger.

    Raises:
        UsageError: the task is empty, the urgency unknown, the cron expression or the event bad.
    """
    check_task(task)
    priority(urgency)
    made = partial(Schedule, id=uuid.uuid4().hex[:8], task=task, urgency=urgency, options=options, added_at=time.time())
    if when.startswith("on:"):
        schedule = made(on=_check_event(when[3:]))
        runs.start_cursor(schedule.id, runs.last_event())  # events logged from now on
    else:
        schedule = made(cron=check_cron(when))
    with client(url, runs.engine) as dbos_client:
        dbos_client.create_schedule(
            schedule_name=schedule.id,
            workflow_name=SCHEDULE_WORKFLOW,
            schedule=schedule.cron or _EVERY_SECOND,
            context=schedule.context(),
            application_name=APP_NAME,
        )
    return schedule


def listed(url: str, runs: RunStore) -> list[Schedule]:
    """The schedules, oldest first."""
    with client(url, runs.engine) as dbos_client:
        found = dbos_client.list_schedules(workflow_name=SCHEDULE_WORKFLOW, application_name=APP_NAME)
    return sorted((Schedule.of(item["context"]) for item in found), key=lambda s: (s.added_at, s.id))


def remove(url: str, runs: RunStore, schedule_id: str) -> Schedule:
    """Delete the schedule ``schedule_id``: no slot of it is submitted once every worker has seen it gone.

    Raises:
        UsageError: there is no such schedule (the message says how to list them).
    """
    with client(url, runs.engine) as dbos_client:
        found = dbos_client.get_schedule(schedule_id)
        if found is None or found["workflow_name"] != SCHEDULE_WORKFLOW:
            raise UsageError(f"No schedule {schedule_id!r}: `chrysalis schedule list` lists them.")
        dbos_client.delete_schedule(schedule_id)
    runs.drop_cursor(schedule_id)
    return Schedule.of(found["context"])


def run_id(schedule_id: str, key: str) -> str:
    """The run a schedule submits for ``key`` (a slot's time, or ``event:POSITION``): the same for every firing."""
    return hashlib.sha256(f"{schedule_id}:{key}".encode()).hexdigest()[:12]


def _check_event(event: str) -> str:
    if not _EVENT.fullmatch(event):
        raise UsageError(
            f"--on {event!r} is not an event type: give one that runs log, as `chrysalis show ID --json` "
            'prints them (its "type"), e.g. final, error, check or council_end.'
        )
    return event


# In the worker


class _Firing:
    """What ``fire`` needs in a worker: the runs, and a DBOS client to queue them (opened on first use)."""

    def __init__(self, url: str, runs: RunStore) -> None:
        self.url = url
        self.runs = runs
        self._lock = threading.Lock()
        self._opened = ExitStack()
        self._client: DBOSClient | None = None

    def client(self) -> DBOSClient:
        with self._lock:
            if self._client is None:
                self._client = self._opened.enter_context(client(self.url, self.runs.engine))
            return self._client

    def close(self) -> None:
        with self._lock:
            self._opened.close()
            self._client = None


_firing: _Firing | None = None
_registered = False


def register() -> None:
    """Register ``fire`` with DBOS once (before ``DBOS()``, as DBOS requires)."""
    global _registered
    if _registered:
        return
    from dbos import DBOS

    DBOS.workflow(name=SCHEDULE_WORKFLOW, max_recovery_attempts=10_000)(fire)
    _registered = True


@contextmanager
def serving(url: str, runs: RunStore) -> Iterator[None]:
    """While a worker serves: the schedules it fires submit through ``runs``."""
    global _firing
    _firing = _Firing(url, runs)
    try:
        yield
    finally:
        _firing.close()
        _firing = None


def fire(slot: datetime, context: dict[str, Any]) -> None:
    """The scheduled workflow: submit the schedule's task for ``slot``, or once per new matching event."""
    from dbos import DBOS

    schedule = Schedule.of(context)
    if schedule.on is None:
        at = slot.astimezone(UTC).isoformat()
        DBOS.run_step({"name": "submit"}, _submit, schedule, at, at)
        return
    after, found = DBOS.run_step({"name": "events"}, _new_events, schedule)
    for position, at in found:
        DBOS.run_step({"name": "submit"}, _submit, schedule, f"event:{position}", at)
    DBOS.run_step({"name": "cursor"}, _move_cursor, schedule.id, after)


def _submit(schedule: Schedule, key: str, slot: str) -> str | None:
    """Queue the schedule's task for ``key`` (once: the run id comes from it); None if the schedule was removed."""
    firing = _live()
    dbos_client = firing.client()
    if dbos_client.get_schedule(schedule.id) is None:  # removed after this slot fired
        return None
    origin = (schedule.id, slot)
    record = enqueue_once(
        dbos_client, firing.runs, run_id(schedule.id, key), schedule.task, schedule.options, schedule.urgency, origin
    )
    return record.id


def _new_events(schedule: Schedule) -> tuple[int, list[tuple[int, str]]]:
    """The cursor's next position, and the matching events after it (position, time) not of the trigger's own runs."""
    firing = _live()
    after = firing.runs.cursor(schedule.id)
    if after is None:  # removed
        return 0, []
    found: list[tuple[int, str]] = []
    settled = time.time() - SETTLE_S
    for position, at, event, origin in firing.runs.events_after(after, before=settled, limit=_EVENTS_PER_FIRING):
        after = position
        if origin != schedule.id and schedule.on in _types(event):
            found.append((position, datetime.fromtimestamp(at, UTC).isoformat()))
    return after, found


def _move_cursor(schedule_id: str, after: int) -> None:
    _live().runs.move_cursor(schedule_id, after)


def _types(event: dict[str, Any]) -> set[str]:
    """The event's type, and a council record's own type (``council_end``) inside a ``council_record``."""
    record = event.get("record")
    inner = record.get("type") if isinstance(record, dict) else None
    return {str(t) for t in (event.get("type"), inner) if t}


def _live() -> _Firing:
    assert _firing is not None, "a schedule fires only inside a worker"
    return _firing
