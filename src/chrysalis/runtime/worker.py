"""``chrysalis worker``: execute queued runs as DBOS workflows, and take over the runs of dead workers.

Each worker is a DBOS executor with its own id (``host-pid-random``). DBOS's queue hands each run
to one executor only (its dequeue is atomic), up to ``--concurrency`` at a time on this worker, most
urgent first, first in first out within an urgency. DBOS recovers at launch only the executor's
own unfinished workflows, and a new worker has a new id; so every worker beats a heartbeat into
``workers``, and looks at the others: one whose process is gone (same host), which stopped, or
whose heartbeat is older than ``STALE_S`` (another host) is dead, and the first worker to claim it
asks DBOS to re-queue its unfinished runs, which then resume after their last recorded step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.config import SettingFlags, Settings, load_settings, without_password
from chrysalis.errors import ChrysalisError
from chrysalis.runtime.approvals import ApprovalStore
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.dbos_tables import migrating
from chrysalis.runtime.queue import APP_NAME, APP_VERSION, QUEUE, WORKFLOW
from chrysalis.runtime.runs import RunStore, WorkerRecord

if TYPE_CHECKING:
    from dbos import DBOSConfig
    from sqlalchemy import Engine

__all__ = ["STALE_S", "Worker"]

STALE_S = 30.0
"""A worker on another host whose heartbeat is older than this is taken for dead."""
_BEAT_S = 2.0
_POLL_S = 0.2
_MESSAGE_POLL_S = 0.1
"""On SQLite, how often DBOS looks for a message to a run that waits for one (``approve`` sends it): one small
query per waiting run each time, none while nothing waits. 0.2 s made the run wake 70 ms later (median);
0.1 s costs about one percent of a core per waiting run (busy 2-core machine). PostgreSQL pushes messages."""
_RECOVERY_ATTEMPTS = 10_000
"""DBOS gives up on a workflow recovered more often than this; ours resume from their records, so let them."""


@dataclass
class _Context:
    """What the workflow function needs from the worker that runs it."""

    runs: RunStore
    approvals: ApprovalStore
    worker_id: str
    waiting: dict[str, str]
    """Runs of this worker blocked on a person's decision (run id → request id): no CPU, the worker may exit."""


_context: _Context | None = None


class Worker:
    """One worker process: launches DBOS, serves the queue, beats, reaps dead workers."""

    def __init__(
        self,
        settings: Settings,
        *,
        concurrency: int,
        exit_when_idle: bool,
        until: str | None = None,
        queue_concurrency: int | None = None,
    ) -> None:
        self.url = database_url(settings)
        self.concurrency = concurrency
        self.queue_concurrency = queue_concurrency
        """Most runs executing at once across all workers (None: no limit); the last worker started sets it."""
        self.exit_when_idle = exit_when_idle
        self.until = until
        """Stop once this run has finished (``chrysalis run --durable`` serves its own run)."""
        self.host = socket.gethostname()
        self.id = f"{self.host}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.stop = threading.Event()
        """Set (by a signal handler, or a test) to stop after the runs in hand reach a step boundary."""
        engine: Engine = open_engine(self.url)
        self.runs = RunStore(engine)
        self.approvals = ApprovalStore(engine)

    def serve(self) -> int:
        """Execute runs until stopped (or, with ``exit_when_idle``, until nothing is left to do); returns 0."""
        global _context
        from dbos import DBOS

        from chrysalis.runtime import schedules

        _register_workflow()
        schedules.register()
        _quiet_dbos()
        self.waiting: dict[str, str] = {}
        _context = _Context(self.runs, self.approvals, self.id, self.waiting)
        self.runs.heartbeat(self.id, self.host, os.getpid())  # before any run is ours: a crash then is seen
        DBOS(config=self._dbos_config())
        try:
            with schedules.serving(self.url, self.runs):  # the schedules this worker fires submit through it
                try:
                    self._launch()
                    self._loop()
                finally:
                    self.runs.stopped(self.id)
                    DBOS.destroy(workflow_completion_timeout_sec=0)
        finally:
            _context = None
            self.runs.close()
        return 0

    def _dbos_config(self) -> DBOSConfig:
        from chrysalis.runtime.schedules import POLL_S

        return {
            "name": APP_NAME,
            "system_database_url": self.url,
            "executor_id": self.id,
            "application_version": APP_VERSION,
            "log_level": "ERROR",
            "notification_listener_polling_interval_sec": _MESSAGE_POLL_S,
            "scheduler_polling_interval_sec": POLL_S,
        }

    def _launch(self) -> None:
        from dbos import DBOS

        with migrating(self.runs.engine):  # DBOS migrates its tables at launch: one process at a time
            DBOS.launch()
        DBOS.register_queue(
            QUEUE,
            worker_concurrency=self.concurrency,
            global_concurrency=self.queue_concurrency,
            polling_interval_sec=_POLL_S,
            on_conflict="always_update",
        )
        threading.Thread(target=_warm_sandbox, name="chrysalis-sandbox-probe", daemon=True).start()
        if self.until is None:
            _say(
                f"worker {self.id}: serving the queue in {without_password(self.url)}, {self.concurrency} at a "
                "time" + (" until it is empty" if self.exit_when_idle else "; Ctrl-C stops it")
            )

    def _loop(self) -> None:
        beat = 0.0
        while not self.stop.is_set():
            if time.monotonic() - beat >= _BEAT_S:
                self.runs.heartbeat(self.id, self.host, os.getpid())
                beat = time.monotonic()
            self._reap()
            if self.exit_when_idle and self._idle():
                return
            if self.until is not None and self.runs.get(self.until).finished:
                return
            self.stop.wait(_POLL_S)

    def _reap(self) -> None:
        """Claim each dead worker once, and have DBOS re-queue its unfinished runs."""
        from dbos import DBOS

        for worker in self.runs.workers():
            if worker.id != self.id and worker.recovered_by is None and self._dead(worker):
                if self.runs.claim(worker.id, self.id):
                    DBOS._recover_pending_workflows([worker.id])

    def _dead(self, worker: WorkerRecord) -> bool:
        if worker.stopped:
            return True
        if worker.host == self.host:
            return not _alive(worker.pid)
        return time.time() - worker.heartbeat_at > STALE_S

    def _idle(self) -> bool:
        """Nothing queued anywhere, nothing of ours running except runs waiting for a decision not yet made.

        A decision stored but not yet taken up (the run is waking) is something left to do.
        """
        from dbos import DBOS

        if DBOS.list_workflows(status="ENQUEUED", name=WORKFLOW, load_input=False, load_output=False, limit=1):
            return False
        mine = DBOS.list_workflows(status="PENDING", executor_id=self.id, load_input=False, load_output=False)
        return all(self._undecided(w.workflow_id) for w in mine)

    def _undecided(self, run_id: str) -> bool:
        request_id = self.waiting.get(run_id)
        return request_id is not None and self.approvals.get(request_id).status == "pending"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _warm_sandbox() -> None:
    """Find out now, off the serving thread, which sandboxes work here (``sandbox.probe`` tries each once per process).

    Otherwise a run's first command pays for it (0.3 to 0.7 s on a busy 2-core machine), and that
    command is often one a person has just approved, with the run waiting on it. A failure is not kept
    (the probe's cache keeps only results), so the command that needs the sandbox meets it and reports it.
    """
    from chrysalis.tools.sandbox import BACKENDS, probe

    with contextlib.suppress(Exception):
        for kind in BACKENDS:
            probe(kind)


def _quiet_dbos() -> None:
    """DBOS logs its start-up and a hosted-console address; the user's terminal gets only our output."""
    logging.getLogger("dbos").setLevel(logging.ERROR)


_registered = False


def _register_workflow() -> None:
    """Register the run workflow with DBOS once (before ``DBOS()``, as DBOS requires)."""
    global _registered
    if _registered:
        return
    from dbos import DBOS

    DBOS.workflow(name=WORKFLOW, max_recovery_attempts=_RECOVERY_ATTEMPTS)(execute_run)
    _registered = True


async def execute_run(run_id: str) -> str:
    """The workflow: run the queued task with every reply, effect and check recorded; returns the final status."""
    from chrysalis.agent.session import AgentSession
    from chrysalis.runtime.durable import DurableRun

    assert _context is not None, "a run executes only inside a worker"
    runs = _context.runs
    record = await asyncio.to_thread(runs.get, run_id)
    if record.finished:
        return record.status
    runs.set_status(run_id, "running", worker=_context.worker_id)
    _say(f"run {run_id}: started ({record.urgency}) {record.task[:60]!r}")
    try:
        settings = load_settings(SettingFlags.from_mapping(record.options))
    except ChrysalisError as exc:  # the config changed under the queued run: say so, do not crash the worker
        runs.set_status(run_id, "failed", error=str(exc))
        return "failed"
    durable = DurableRun(run_id, settings.workspace, runs, _context.approvals, settings.home, _context.waiting)
    session = AgentSession(settings, approver=durable.approver, on_event=durable.record, durability=durable)
    try:
        result = await session.run(record.task, run_id=run_id)
    except ChrysalisError as exc:
        runs.set_status(run_id, "failed", error=str(exc))
        _say(f"run {run_id}: failed: {exc}")
        return "failed"
    finally:
        session.close()
    status = "done" if result.success else "failed"
    runs.set_status(run_id, status, result=_result(result.to_json()))
    _say(f"run {run_id}: {status} after {result.steps} steps")
    return status


def _say(line: str) -> None:
    """One line of the worker's log, on stderr (stdout stays free for scripts)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _result(event: dict[str, Any]) -> dict[str, Any]:
    """The run's result as ``queue``/``show`` print it: the final event without its type."""
    return {k: v for k, v in event.items() if k != "type"}
