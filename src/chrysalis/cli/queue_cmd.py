"""``chrysalis submit | worker | queue | show | cancel``: the durable runtime from the terminal.

``submit`` checks the run's settings now (a bad flag exits 2 here, not hours later in a worker),
stores the flags it was given and queues the run; the worker loads the settings again from those
flags, in its own environment, when the run starts.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.table import Table

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import EXIT_OK, UsageError
from chrysalis.runtime.database import database_url, open_engine, unreachable
from chrysalis.runtime.runs import RunRecord, RunStore

__all__ = [
    "cancel_command",
    "durable_run_command",
    "open_runs",
    "queue_command",
    "run_options",
    "show_command",
    "submit_command",
    "worker_command",
]

_FOLLOW_POLL_S = 0.3


@contextmanager
def open_runs(settings: Settings | None = None) -> Iterator[tuple[str, RunStore]]:
    """The runtime database's URL and runs; a database that cannot be reached is a clear error (exit 2)."""
    from sqlalchemy.exc import OperationalError

    settings = settings or load_settings()
    url = database_url(settings)
    try:
        with RunStore(open_engine(url)) as runs:
            yield url, runs
    except OperationalError as exc:
        raise unreachable(url, exc) from exc


def run_options(flags: SettingFlags, settings: Settings) -> dict[str, Any]:
    """What a queued run keeps of its flags: those given, with the folder it was submitted from (not a worker's cwd)."""
    return replace(flags, workspace=settings.workspace).as_options()


def submit_command(task: str, flags: SettingFlags, *, urgency: str, json_output: bool) -> int:
    """Queue ``task``; prints its id (or ``{"id", "status"}``)."""
    from chrysalis.runtime.queue import priority, submit

    if not task.strip():
        raise UsageError('The task is empty: say what the agent should do, e.g. chrysalis submit "fix the tests".')
    priority(urgency)  # a bad --urgency fails before anything is written
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    with open_runs(settings) as (url, runs):
        record = submit(url, runs, task, run_options(flags, settings), urgency)
    print(
        json.dumps({"id": record.id, "status": record.status, "urgency": record.urgency}) if json_output else record.id
    )
    return EXIT_OK


def durable_run_command(task: str, flags: SettingFlags, *, json_output: bool) -> int:
    """``chrysalis run --durable``: queue the run (critical), execute it in this process, print its events.

    Ctrl-C stops this process but not the run: it stays in the queue, and any ``chrysalis worker``
    resumes it after its last recorded step.
    """
    from chrysalis.errors import EXIT_FAILED, EXIT_INTERRUPTED
    from chrysalis.runtime.queue import submit
    from chrysalis.runtime.worker import Worker

    if not task.strip():
        raise UsageError(
            'The task is empty: say what the agent should do, e.g. chrysalis run --durable "fix the tests".'
        )
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    with open_runs(settings) as (url, runs):
        record = submit(url, runs, task, run_options(flags, settings), "critical")
        worker = Worker(settings, concurrency=1, exit_when_idle=False, until=record.id)
        serving = threading.Thread(target=worker.serve, name="chrysalis-worker", daemon=True)
        serving.start()
        try:
            _follow(runs, record.id, json_output=json_output, alive=serving.is_alive)
        except KeyboardInterrupt:
            worker.stop.set()
            serving.join()
            sys.stderr.write(
                f"Interrupted. Run {record.id} is kept in the queue: `chrysalis worker` resumes it "
                f"after its last step; `chrysalis show {record.id}` shows it.\n"
            )
            return EXIT_INTERRUPTED
        serving.join()
        record = runs.get(record.id)
    return EXIT_OK if record.status == "done" else EXIT_FAILED


def worker_command(*, concurrency: int, exit_when_idle: bool, queue_concurrency: int | None = None) -> int:
    """Serve the queue until Ctrl-C / SIGTERM (or until idle with ``--exit-when-idle``)."""
    from chrysalis.runtime.worker import Worker

    if concurrency < 1:
        raise UsageError(f"--concurrency {concurrency} is not allowed: a worker runs at least 1 run at a time.")
    if queue_concurrency is not None and queue_concurrency < 1:
        raise UsageError(f"--queue-concurrency {queue_concurrency} is not allowed: use 1 or more, or leave it out.")
    settings = load_settings()
    print_warnings(settings.warnings)
    from sqlalchemy.exc import OperationalError

    try:
        worker = Worker(
            settings, concurrency=concurrency, exit_when_idle=exit_when_idle, queue_concurrency=queue_concurrency
        )
    except OperationalError as exc:
        raise unreachable(database_url(settings), exc) from exc
    signal.signal(signal.SIGTERM, lambda *_: worker.stop.set())
    try:
        return worker.serve()
    except KeyboardInterrupt:
        exit_if_stuck(STUCK_AFTER_CTRL_C_S)
        return EXIT_OK


STUCK_AFTER_CTRL_C_S = 30.0
"""How long a worker stopped by Ctrl-C may take to exit before it exits anyway."""


def exit_if_stuck(seconds: float) -> None:
    """Exit the process ``seconds`` from now if it has not exited by then (Ctrl-C stopped a worker).

    Python waits at exit for every thread that is not a daemon; one that never ends (seen under heavy
    load: a worker sent Ctrl-C that slept on with 13 threads) would keep the worker alive for ever,
    and the user's Ctrl-C would do nothing. Nothing is lost by leaving: the runs in flight are durable,
    and a worker resumes each after its last recorded step (docs/durable.md).
    """

    def leave() -> None:
        sys.stderr.write(f"chrysalis worker: still stopping after {seconds:g} s; exiting now (runs resume later).\n")
        sys.stderr.flush()
        os._exit(EXIT_OK)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True  # a daemon itself: it never holds the exit it guards
    timer.start()


def queue_command(*, json_output: bool, watch: bool) -> int:
    """List the runs, newest first (``--watch``: a live table until Ctrl-C)."""
    with open_runs() as (_url, runs):
        if json_output:
            print(json.dumps([record.to_json() for record in runs.all()]))
            return EXIT_OK
        console = Console(highlight=False, soft_wrap=True)
        if not watch:
            console.print(_table(runs.all()))
            return EXIT_OK
        try:
            _watch(runs, console)
        except KeyboardInterrupt:
            pass
        return EXIT_OK


def _watch(runs: RunStore, console: Console) -> None:
    """A live table on a terminal; elsewhere (a pipe, a log) the table again each time a run changes."""
    if console.is_terminal:
        from rich.live import Live

        with Live(_table(runs.all()), console=console, refresh_per_second=4) as live:
            while True:
                time.sleep(_FOLLOW_POLL_S)
                live.update(_table(runs.all()))
    shown: list[RunRecord] | None = None
    while True:
        records = runs.all()
        if records != shown:
            console.print(_table(records))
            console.file.flush()
            shown = records
        time.sleep(_FOLLOW_POLL_S)


def show_command(run_id: str, *, json_output: bool, follow: bool) -> int:
    """Print a run's events and result (``--follow``: until it finishes)."""
    console = Console(highlight=False, soft_wrap=True)
    with open_runs() as (_url, runs):
        record = runs.get(run_id)
        _follow(runs, run_id, json_output=json_output, alive=lambda: follow)
        record = runs.get(run_id)
    if json_output:
        print(json.dumps({"type": "run", **record.to_json()}))
    else:
        console.print(f"run {record.id}: {record.status}" + (f" ({record.error})" if record.error else ""))
        if record.result and record.result.get("output"):
            console.print(str(record.result["output"]), markup=False)
    return EXIT_OK


def _follow(runs: RunStore, run_id: str, *, json_output: bool, alive: Callable[[], bool]) -> None:
    """Print the run's events as they come, until it has finished (or ``alive()`` says to stop waiting)."""
    console = Console(highlight=False, soft_wrap=True)
    seen = 0
    while True:
        for position, event in runs.events(run_id, after=seen):
            seen = position
            if json_output:
                print(json.dumps(event), flush=True)
            else:
                console.print(_line(event), markup=False)
        if runs.get(run_id).finished or not alive():
            if runs.events(run_id, after=seen):
                continue  # the last events came with the end
            return
        time.sleep(_FOLLOW_POLL_S)


def cancel_command(run_id: str, *, json_output: bool) -> int:
    """Cancel a queued or running run."""
    from chrysalis.runtime.queue import cancel

    with open_runs() as (url, runs):
        record = cancel(url, runs, run_id)
    print(json.dumps({"id": record.id, "status": record.status}) if json_output else f"Cancelled run {record.id}.")
    return EXIT_OK


def _table(records: list[RunRecord]) -> Table:
    table = Table("id", "status", "urgency", "task", "submitted")
    for record in records:
        submitted = datetime.datetime.fromtimestamp(record.created_at).strftime("%Y-%m-%d %H:%M:%S")
        table.add_row(record.id, record.status, record.urgency, record.task[:60], submitted)
    return table


def _line(event: dict[str, Any]) -> str:
    """One event as a line for people (``--json`` prints the event itself)."""
    kind = event.get("type", "?")
    if kind == "tool_call":
        return f"→ {event.get('tool')} {json.dumps(event.get('args'))}"
    if kind == "tool_result":
        return f"  {'ok' if event.get('ok') else 'error'}: {str(event.get('error') or event.get('result'))[:200]}"
    if kind == "text_delta":
        return str(event.get("text", ""))
    if kind == "check":
        return f"check `{event.get('command')}`: {'passed' if event.get('passed') else 'failed'}"
    if kind == "final":
        return f"done: {event.get('output') or ''}"
    if kind == "error":
        return f"error: {event.get('message', '')}"
    if kind == "council_record" and isinstance(event.get("record"), dict):
        return _council_line(event["record"])
    return str(kind)


def _council_line(record: dict[str, Any]) -> str:
    """A council's signed record as its line: the gate's answer, the arbiter's pick, a turn, the end."""
    kind, persona, data = record.get("type"), record.get("persona"), record.get("data") or {}
    if kind == "council_gate":
        wants = "wants to speak" if data.get("should_speak") else "waits"
        return f"  {persona} {wants}: {data.get('reason', '')}"
    if kind == "council_arbiter":
        return f"round {data.get('round')}: floor to {', '.join(data.get('winners') or []) or 'nobody'}"
    if kind == "council_turn":
        return f"{persona}: {data.get('text', '')}"
    if kind == "council_end":
        return f"council ended after {data.get('turns')} turns" + (f": {data['error']}" if data.get("error") else "")
    return str(kind)
