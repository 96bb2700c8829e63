"""The HTTP service's runs: queued in the durable runtime, executed by a worker inside the service.

A ``POST /v1/runs`` is a ``chrysalis submit``: a row in ``runs`` and a DBOS workflow on the
``chrysalis`` queue, in the runtime database (``CHRYSALIS_DATABASE_URL`` or ``runtime.sqlite`` under
``$CHRYSALIS_HOME``). The service runs the same ``Worker`` as ``chrysalis worker`` in a thread, so a run
survives the service's crash (the next worker resumes it after its last recorded step), and
``chrysalis queue | show | cancel`` see and act on the service's runs as on any other. The events
the SSE endpoint streams are the ones the worker records in ``run_events`` (``chrysalis show --json``).

A run is queued with the server's settings (its ``serve`` flags, env and config) written out in
full, with the request's fields on top, so a worker elsewhere runs it the same way.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.runs import RunRecord, RunStore
from chrysalis.server.http.models import RunRequest, RunStatus, RunView
from chrysalis.tools.policy import NarrowingRefused, Policy

if TYPE_CHECKING:
    from chrysalis.runtime.worker import Worker

__all__ = ["DEFAULT_CONCURRENCY", "Finished", "NoSuchRun", "RunService", "Unacceptable"]

DEFAULT_CONCURRENCY = 2
"""Runs the service's own worker executes at once (more wait in the queue, or go to other workers)."""


class NoSuchRun(Exception):
    """No run has this id (404)."""


class Finished(Exception):
    """The run has already finished, so there is nothing to cancel (409)."""

    def __init__(self, record: RunRecord) -> None:
        super().__init__(f"Run {record.id} already finished ({record.status}); nothing to cancel.")
        self.record = record


class Unacceptable(Exception):
    """The request is well formed but cannot be run as asked (400); ``field`` names the culprit."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class RunService:
    """Queue, look up and cancel runs; with a ``concurrency`` above 0, also execute them in this process."""

    def __init__(self, settings: Settings, *, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        """Serve runs under ``settings`` (the server's); nothing is opened until ``start``.

        ``concurrency`` is how many runs this process's worker executes at once; with 0 there is no
        worker, and ``chrysalis worker`` processes run what is queued.
        """
        self.settings = settings
        self.url = database_url(settings)
        self.concurrency = concurrency
        self._stack = ExitStack()
        self._runs: RunStore | None = None
        self._client: Any = None
        self._worker: Worker | None = None
        self._thread: threading.Thread | None = None
        self._writing = threading.Lock()
        """One queue write at a time from this process: SQLite lets one writer in, and a writer that finds it
        locked sleeps in steps up to 100 ms (its busy handler), which made the POST's p99 ten times its median."""

    def start(self) -> None:
        """Open the runtime database and the queue's client; start the worker thread.

        Raises:
            UsageError: the runtime database cannot be opened (the message shows its URL without a password).
        """
        from sqlalchemy.exc import OperationalError

        from chrysalis.runtime.database import unreachable
        from chrysalis.runtime.queue import client

        try:
            self._runs = self._stack.enter_context(RunStore(open_engine(self.url)))
            self._client = self._stack.enter_context(client(self.url))
        except OperationalError as exc:
            self._stack.close()
            raise unreachable(self.url, exc) from exc
        if self.concurrency > 0:
            from chrysalis.runtime.worker import Worker

            self._worker = Worker(self.settings, concurrency=self.concurrency, exit_when_idle=False)
            self._thread = threading.Thread(target=self._worker.serve, name="chrysalis-http-worker", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the worker at its runs' next step boundary (they stay queued for any worker) and close."""
        if self._worker is not None and self._thread is not None:
            self._worker.stop.set()
            self._thread.join()
        self._worker = self._thread = None
        self._stack.close()

    @property
    def runs(self) -> RunStore:
        """The runtime's run store (``start`` opens it)."""
        assert self._runs is not None, "RunService.start() first"
        return self._runs

    def submit(self, request: RunRequest) -> RunRecord:
        """Queue the request's task under the server's settings and its own fields.

        Raises:
            Unacceptable: a field the settings refuse, or a level or mode that allows more than the server's.
        """
        from chrysalis.runtime.queue import enqueue

        self._within_policy(request)
        flags = self._server_flags().overridden_by(request.settings_flags())
        try:
            settings = load_settings(flags)  # the combination is checked now, not hours later in a worker
        except UsageError as exc:
            raise Unacceptable(_field_of(exc, flags), str(exc)) from exc
        options = replace(flags, workspace=settings.workspace).as_options()
        try:
            with self._writing:
                return enqueue(self._client, self.runs, request.task, options, request.urgency)
        except UsageError as exc:
            raise Unacceptable("task", str(exc)) from exc

    def _within_policy(self, request: RunRequest) -> None:
        """Refuse a request whose level or mode would allow more than the server's policy (it may only narrow it).

        Raises:
            Unacceptable: naming ``level`` or ``mode``, what the server allows and how to start one that allows more.
        """
        policy = Policy.from_settings(self.settings)
        try:
            policy.narrowed(level=request.level, mode=request.mode, asker="A request")
        except NarrowingRefused as refused:
            if refused.field == "level":
                message = (
                    f"level {request.level} is above this server's level {policy.level}: a request may lower the "
                    "level, not raise it (start `chrysalis serve --http --level N`)."
                )
            else:
                message = (
                    f"mode {request.mode!r} allows more than this server's mode {policy.mode!r}: a request may "
                    f"narrow the mode (to {', '.join(policy.modes_within())}), not widen it "
                    f"(start `chrysalis serve --http --mode {request.mode}`)."
                )
            raise Unacceptable(refused.field, message) from refused

    def view(self, run_id: str) -> RunView:
        """The run as ``GET /v1/runs/{id}`` shows it.

        Raises:
            NoSuchRun: there is none.
        """
        return to_view(self._record(run_id))

    def latest(self, limit: int, status: RunStatus | None) -> list[RunView]:
        """The latest ``limit`` runs as ``GET /v1/runs`` lists them, newest first; only ``status`` ones if given."""
        statuses = () if status is None else ("running", "waiting_approval") if status == "running" else (status,)
        return [to_view(record) for record in self.runs.all(limit=limit, statuses=statuses)]

    def events(self, run_id: str, after: int) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
        """The run's events after position ``after``, and whether the run had finished before they were read."""
        finished = self._record(run_id).finished
        return self.runs.events(run_id, after=after), finished

    def cancel(self, run_id: str) -> RunView:
        """Cancel a queued or running run (a running one stops at its next step).

        Raises:
            NoSuchRun: there is none.
            Finished: it has already finished.
        """
        from chrysalis.runtime.queue import cancel

        record = self._record(run_id)
        if record.finished:
            raise Finished(record)
        try:
            cancel(self.url, self.runs, run_id)
        except ChrysalisError as exc:  # it finished between the look and the cancel
            raise Finished(self._record(run_id)) from exc
        return to_view(self._record(run_id))

    def _record(self, run_id: str) -> RunRecord:
        try:
            return self.runs.get(run_id)
        except UsageError as exc:
            raise NoSuchRun(f"No run {run_id!r}: POST /v1/runs queues one.") from exc

    def _server_flags(self) -> SettingFlags:
        """The server's run settings, written out so any worker runs the request as this server would."""
        s = self.settings
        return SettingFlags(
            model=s.model, mode=s.mode, level=s.level, workspace=s.workspace, yes=s.yes, base_url=s.base_url or None
        )


def _field_of(error: UsageError, flags: SettingFlags) -> str | None:
    """The request field a settings error is about: the one its message quotes as a key (``for 'level'``)."""
    text = str(error)
    return next((key for key in flags.given() if f"for {key!r}" in text or f"--{key.replace('_', '-')}" in text), None)


def to_view(record: RunRecord) -> RunView:
    """A queue record as the service shows it: the result's numbers lifted out, ``waiting_approval`` as running."""
    result = record.result or {}
    status = "running" if record.status == "waiting_approval" else record.status
    return RunView(
        id=record.id,
        status=status,  # type: ignore[arg-type]  # the store's statuses, checked by RunView
        waiting_approval=record.status == "waiting_approval",
        task=record.task,
        urgency=record.urgency,
        workspace=record.options.get("workspace"),
        answer=result.get("output"),
        success=result.get("success"),
        verified=result.get("verified"),
        problem=result.get("problem"),
        steps=result.get("steps"),
        input_tokens=result.get("input_tokens"),
        output_tokens=result.get("output_tokens"),
        cost_usd=result.get("cost_usd"),
        duration_ms=result.get("duration_ms"),
        error=record.error,
        worker=record.worker,
        created_at=record.created_at,
        updated_at=record.updated_at,
    )
