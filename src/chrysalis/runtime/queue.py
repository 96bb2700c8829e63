"""The queue as commands see it: submit a run, cancel one, wake one waiting for approval.

A submit needs no worker and no DBOS launch: a ``DBOSClient`` writes the workflow row (queue
``chrysalis``, priority from the urgency, id = the run id) and our ``runs`` row, and returns. A
worker (``runtime/worker.py``) picks it up, here or on another machine sharing the database.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from chrysalis import __version__
from chrysalis.errors import UsageError
from chrysalis.runtime.runs import URGENCIES, RunRecord, RunStore

if TYPE_CHECKING:
    from dbos import DBOSClient
    from sqlalchemy import Engine

__all__ = [
    "APP_NAME",
    "APP_VERSION",
    "QUEUE",
    "WORKFLOW",
    "approval_topic",
    "cancel",
    "check_task",
    "client",
    "enqueue",
    "enqueue_once",
    "priority",
    "submit",
    "wake",
]

QUEUE = "chrysalis"
APP_NAME = "chrysalis"
"""The DBOS application every worker is (its schedules are fired by them)."""
WORKFLOW = "chrysalis.run"
APP_VERSION = f"chrysalis-{__version__}"
"""Every worker and submitter of one release agrees on it, so recovery finds the runs (DBOS filters by it)."""


def priority(urgency: str) -> int:
    """DBOS's priority for ``urgency`` (1 runs first).

    Raises:
        UsageError: not one of the five urgencies (the message lists them).
    """
    if urgency not in URGENCIES:
        raise UsageError(f"--urgency {urgency!r} is not an urgency: use one of {', '.join(URGENCIES)}.")
    return URGENCIES.index(urgency) + 1


@contextmanager
def client(url: str, engine: Engine | None = None) -> Iterator[DBOSClient]:
    """A DBOS client on ``url`` whose system tables exist (made on first use, as a worker's launch would).

    On PostgreSQL the tables also get DBOS's notification trigger, which a client's migration leaves
    out: without it ``wake`` reaches a waiting run only at DBOS's 60 s re-check (``wakeup``). Both
    are made by one process at a time (``dbos_tables``).

    Args:
        url: The runtime database, which holds DBOS's tables beside ours.
        engine: A PostgreSQL engine on ``url`` the caller already has open: DBOS works through it
            instead of opening connections of its own (to this database, and to the server's
            ``postgres`` database to see that this one exists), a few round trips fewer. A SQLite
            engine is not shared: DBOS's own SQLite connections need settings of their own.
    """
    from dbos import DBOSClient

    from chrysalis.runtime.dbos_tables import ensure_tables

    shared = engine if engine is not None and engine.dialect.name == "postgresql" else None
    dbos_client = DBOSClient(system_database_url=url, system_database_engine=shared)
    try:
        ensure_tables(dbos_client._sys_db)
        yield dbos_client
    finally:
        dbos_client.destroy()  # an engine given stays open: its owner closes it


def submit(url: str, runs: RunStore, task: str, options: Mapping[str, Any], urgency: str) -> RunRecord:
    """Queue ``task`` with the run ``options`` (the flags given) at ``urgency``; returns the queued run.

    Raises:
        UsageError: the task is empty or the urgency unknown.
    """
    check_task(task)
    priority(urgency)
    with client(url) as dbos_client:
        return enqueue(dbos_client, runs, task, options, urgency)


def enqueue(dbos_client: DBOSClient, runs: RunStore, task: str, options: Mapping[str, Any], urgency: str) -> RunRecord:
    """``submit`` through a client the caller keeps open (the HTTP service queues many runs through one).

    Raises:
        UsageError: the task is empty or the urgency unknown.
    """
    check_task(task)
    rank = priority(urgency)
    run_id = uuid.uuid4().hex[:12]
    record = runs.add(run_id, task, urgency, options)
    _queue(dbos_client, runs, run_id, rank)
    return record


def enqueue_once(
    dbos_client: DBOSClient,
    runs: RunStore,
    run_id: str,
    task: str,
    options: Mapping[str, Any],
    urgency: str,
    origin: tuple[str, str],
) -> RunRecord:
    """``enqueue`` under an id the caller derives (a schedule's slot): with an id already there, nothing changes.

    Both writes are idempotent, so a submission cut short by a crash is completed by doing it again:
    the ``runs`` row is kept if it is there, and DBOS keeps the first workflow of an id.
    ``origin`` is the schedule and the slot (ISO 8601, UTC) that submitted it.
    """
    record = runs.add_once(run_id, task, urgency, options, origin=origin)
    if not record.finished:
        _queue(dbos_client, runs, run_id, priority(urgency))
    return record


def _queue(dbos_client: DBOSClient, runs: RunStore, run_id: str, rank: int) -> None:
    """The workflow that executes ``run_id``, in the queue at priority ``rank``."""
    try:
        dbos_client.enqueue(
            {
                "queue_name": QUEUE,
                "workflow_name": WORKFLOW,
                "workflow_id": run_id,
                "priority": rank,
                "app_version": APP_VERSION,
            },
            run_id,
        )
    except BaseException as exc:  # not queued: the row must not sit in the list as "queued" forever
        runs.set_status(run_id, "failed", error=f"could not be queued: {exc}")
        raise


def check_task(task: str) -> None:
    """Refuse an empty task.

    Raises:
        UsageError: ``task`` is empty or only white space.
    """
    if not task.strip():
        raise UsageError('The task is empty: say what the agent should do, e.g. chrysalis submit "fix the tests".')


def cancel(url: str, runs: RunStore, run_id: str) -> RunRecord:
    """Cancel ``run_id``: a queued run never starts, a running one stops at its next step.

    Raises:
        UsageError: no such run, or it has already finished.
    """
    record = runs.get(run_id)
    if record.finished:
        raise UsageError(f"Run {run_id} already finished ({record.status}); nothing to cancel.")
    with client(url) as dbos_client:
        dbos_client.cancel_workflow(run_id)
    runs.set_status(run_id, "cancelled")
    return runs.get(run_id)


def wake(url: str, run_id: str, topic: str, engine: Engine | None = None) -> None:
    """Tell the run ``run_id`` that something it waits for (``topic``) has happened (if it is a queued run).

    ``engine``: the caller's engine on ``url``, shared with DBOS on PostgreSQL (``client``).
    """
    from dbos._error import DBOSNonExistentWorkflowError

    with client(url, engine) as dbos_client:
        try:
            dbos_client.send(run_id, "decided", topic=topic)
        except DBOSNonExistentWorkflowError:  # not a durable run: it checks the store itself, no one to wake
            pass


def approval_topic(request_id: str) -> str:
    """The message topic on which ``chrysalis approve`` wakes the run waiting for ``request_id``."""
    return f"approval:{request_id}"
