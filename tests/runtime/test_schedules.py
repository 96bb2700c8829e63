"""Scheduled runs: ``chrysalis schedule add | list | remove``, fired by real ``chrysalis worker`` processes.

The cron and argument checks run the CLI alone. The firing tests start two workers on one database
(SQLite, and PostgreSQL when ``TEST_POSTGRES_URL`` is set) against a scripted model, and read the
``runs`` table: each slot of a 2-second schedule is submitted once, and none after ``schedule remove``.
Nothing waits on a clock: each wait polls the database for a state, with a generous deadline.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import pytest

from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.queue import WORKFLOW, client, enqueue_once
from chrysalis.runtime.runs import RunRecord, RunStore
from chrysalis.runtime.schedules import POLL_S, run_id
from tests.helpers import assert_clean_error, chrysalis
from tests.runtime.queue_helpers import finish, folder_without_tests, spawn

T = TypeVar("T")
DEADLINE_S = 180.0
"""How long a wait for a state may take on a loaded 2-core machine before the test fails (it takes seconds)."""


def _add(*args: str) -> str:
    done = chrysalis("schedule", "add", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def _listed() -> list[dict[str, object]]:
    done = chrysalis("schedule", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed: list[dict[str, object]] = json.loads(done.stdout)
    return listed


# The command line


def test_five_and_six_field_crons_are_stored_as_given_and_listed_in_order(tmp_path: Path) -> None:
    crons = ["*/2 * * * * *", "30 8 1 jan mon", "0,30 9-17 * * 1-5"]
    ids = [_add(cron, f"task {i}", "--workspace", str(tmp_path), "--urgency", "high") for i, cron in enumerate(crons)]
    assert _listed() == [
        {"id": ids[i], "cron": cron, "on": None, "task": f"task {i}", "workspace": str(tmp_path), "urgency": "high"}
        for i, cron in enumerate(crons)
    ]


@pytest.mark.parametrize(
    ("cron", "named"),
    [
        ("* * * *", ["has 4 fields", "give 5", "or 6 with seconds first"]),
        ("* * * * * * *", ["has 7 fields"]),
        ("60 * * * * *", ["the second field (1 of 6) is '60'", "0-59"]),
        ("* 24 * * *", ["the hour field (2 of 5) is '24'", "0-23"]),
        ("* * 0 * *", ["the day of month field (3 of 5) is '0'", "1-31"]),
        ("* * * 13 *", ["the month field (4 of 5) is '13'", "1-12 or jan-dec"]),
        ("* * * * 8", ["the day of week field (5 of 5) is '8'", "0-7 or sun-sat"]),
        ("*/0 * * * *", ["the minute field (1 of 5) is '*/0'"]),
        ("soon * * * *", ["the minute field (1 of 5) is 'soon'"]),
    ],
)
def test_a_bad_cron_is_exit_2_naming_the_field_and_what_it_allows(cron: str, named: list[str]) -> None:
    done = chrysalis("schedule", "add", cron, "say hi")
    assert_clean_error(done, 2, f"CRON {cron!r}", *named)
    assert _listed() == []


def test_bad_arguments_are_exit_2_and_store_nothing() -> None:
    assert_clean_error(
        chrysalis("schedule", "add", "* * * * *", "hi", "--urgency", "soon"), 2, "--urgency 'soon'", "idle"
    )
    assert_clean_error(chrysalis("schedule", "add", "* * * * *", " "), 2, "The task is empty")
    assert_clean_error(chrysalis("schedule", "add", "* * * * *"), 2, "Missing TASK after CRON '* * * * *'")
    assert_clean_error(chrysalis("schedule", "add", "* * * * *", "hi", "--on", "final"), 2, "not both")
    assert_clean_error(chrysalis("schedule", "add", "--on", "Final!", "hi"), 2, "--on 'Final!' is not an event type")
    assert_clean_error(chrysalis("schedule", "add", "* * * * *", "hi", "--level", "9"), 2, "--level")
    assert _listed() == []


def test_remove_takes_it_off_the_list_and_an_unknown_id_is_exit_2_naming_it(tmp_path: Path) -> None:
    kept = _add("0 9 * * *", "morning", "--workspace", str(tmp_path))
    trigger = _add("--on", "final", "after each run", "--workspace", str(tmp_path))
    assert [(s["id"], s["cron"], s["on"]) for s in _listed()] == [(kept, "0 9 * * *", None), (trigger, None, "final")]
    removed = chrysalis("schedule", "remove", trigger)
    assert removed.returncode == 0 and trigger in removed.stdout, removed.stderr
    assert [s["id"] for s in _listed()] == [kept]
    assert_clean_error(chrysalis("schedule", "remove", trigger), 2, f"No schedule {trigger!r}", "schedule list")
    assert_clean_error(chrysalis("schedule", "remove", "nope"), 2, "No schedule 'nope'")


# Exactly once per slot


def test_submitting_a_slot_again_changes_nothing(tmp_path: Path) -> None:
    """What a second firing of a slot, or the submit step run again after a crash, does: nothing."""
    url = database_url(load_settings({}))
    slot = "2030-01-01T09:00:00+00:00"
    with RunStore(open_engine(url)) as runs, client(url) as dbos_client:
        again = (dbos_client, runs, run_id("s1", slot), "say ok", {"workspace": str(tmp_path)}, "normal", ("s1", slot))
        first = enqueue_once(*again)
        assert enqueue_once(*again) == first
        assert [(r.id, r.schedule, r.slot, r.status) for r in runs.all()] == [(first.id, "s1", slot, "queued")]
        assert [w.workflow_id for w in dbos_client.list_workflows(name=WORKFLOW)] == [first.id]
    assert run_id("s1", slot) != run_id("s2", slot) and run_id("s1", slot) != run_id("s1", "2030-01-01T09:00:02+00:00")


# Fired by two workers


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """The runtime database the workers share: SQLite under CHRYSALIS_HOME, or a fresh PostgreSQL database."""
    if request.param == "postgresql":
        request.getfixturevalue("postgresql_url")  # sets CHRYSALIS_DATABASE_URL
    return str(request.param)


@contextmanager
def _workers(count: int) -> Iterator[list[subprocess.Popen[str]]]:
    """``count`` ``chrysalis worker`` processes, stopped with SIGTERM at the end (each must exit 0)."""
    workers = [spawn("worker") for _ in range(count)]
    try:
        yield workers
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            _out, err = finish(worker)
            assert worker.returncode == 0, err


def _runs(schedule_id: str) -> list[RunRecord]:
    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        return [record for record in runs.all(limit=10_000) if record.schedule == schedule_id]


def _until(what: str, state: Callable[[], T], holds: Callable[[T], bool]) -> T:
    """Poll ``state()`` until ``holds`` it; fail naming ``what`` after ``DEADLINE_S``."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        found = state()
        if holds(found):
            return found
        assert time.monotonic() < deadline, f"gave up waiting for {what}; found {found!r}"
        time.sleep(0.2)


def _slot(record: RunRecord) -> datetime:
    assert record.slot is not None
    return datetime.fromisoformat(record.slot)


def test_two_workers_submit_each_slot_once_and_stop_after_remove(database: str, tmp_path: Path) -> None:
    del database
    workspace = folder_without_tests(tmp_path)
    with ScriptedOpenAIServer(lambda _body: ScriptedReply(text="ok"), max_requests=500) as server:
        model = ("--model", "scripted", "--base-url", server.base_url, "--mode", "ask", "--workspace", str(workspace))
        with _workers(2):
            every_2s = _add("*/2 * * * * *", "say ok", *model)
            runs = _until("three slots, two of them done", lambda: _runs(every_2s), _three_slots_two_done)
            removed = chrysalis("schedule", "remove", every_2s)
            assert removed.returncode == 0, removed.stderr
            removed_at = datetime.now(UTC)
            # A clock the workers keep: a schedule added after the remove. Once it has a run for a slot later than
            # one polling interval and one slot after the remove, every worker has looked at the schedules since.
            clock = _add("* * * * * *", "tick", *model, "--urgency", "idle")
            beyond = removed_at + timedelta(seconds=POLL_S + 2 + 1)
            _until("a worker to fire a later slot", lambda: _runs(clock), lambda rs: any(_slot(r) > beyond for r in rs))
            assert chrysalis("schedule", "remove", clock).returncode == 0
            runs = _runs(every_2s)
        assert all(count == 1 for count in Counter(r.slot for r in runs).values()), [r.slot for r in runs]
        assert all(_slot(r) <= removed_at for r in runs), (removed_at, [r.slot for r in runs])
        assert all(_slot(r).microsecond == 0 and _slot(r).second % 2 == 0 for r in runs)
        listed = chrysalis("queue", "--json")
    shown = {run["id"]: run for run in json.loads(listed.stdout)}
    done = next(r for r in runs if r.status == "done")
    assert shown[done.id]["schedule"] == every_2s and shown[done.id]["slot"] == done.slot
    assert shown[done.id]["slot"].endswith("+00:00") and shown[done.id]["task"] == "say ok"


def _three_slots_two_done(runs: list[RunRecord]) -> bool:
    return len({r.slot for r in runs}) >= 3 and sum(r.status == "done" for r in runs) >= 2


def test_an_event_trigger_submits_once_per_matching_event(tmp_path: Path) -> None:
    workspace = folder_without_tests(tmp_path)
    with ScriptedOpenAIServer(lambda _body: ScriptedReply(text="ok"), max_requests=100) as server:
        model = ("--model", "scripted", "--base-url", server.base_url, "--mode", "ask", "--workspace", str(workspace))
        trigger = _add("--on", "final", "summarise the run", *model)
        with _workers(2):
            for i in range(2):
                assert chrysalis("submit", f"say ok {i}", *model).returncode == 0
            runs = _until("one triggered run per final event, done", lambda: _runs(trigger), lambda rs: _done(rs, 2))
            with RunStore(open_engine(database_url(load_settings({})))) as store:
                logged = store.last_event()  # the triggered runs' own final events included: they are done
                _until("the trigger to read past them", lambda: store.cursor(trigger) or 0, lambda at: at >= logged)
            assert chrysalis("schedule", "remove", trigger).returncode == 0
        assert len(_runs(trigger)) == 2  # the triggered runs' own final events did not trigger it again
    assert all(r.task == "summarise the run" and r.slot for r in runs)


def _done(runs: list[RunRecord], count: int) -> bool:
    return len(runs) >= count and all(r.status == "done" for r in runs)
