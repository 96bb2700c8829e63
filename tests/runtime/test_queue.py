"""The durable queue from the terminal: submit returns at once, a worker executes, show and queue report.

Every test runs real ``chrysalis`` processes against a scripted model server on 127.0.0.1 and the
runtime's SQLite database under the test's ``CHRYSALIS_HOME``; a worker with ``--exit-when-idle``
ends when nothing is left for it, so no test waits on a clock.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import CLI_HANG_GUARD, assert_clean_error, chrysalis, scripted
from tests.runtime.queue_helpers import events, finish, run_record, spawn, submit, work

FIX = [
    ScriptedReply.tool_call("read_file", {"path": "calc.py"}),
    ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
    ScriptedReply(text="Fixed."),
]


def test_a_submitted_run_is_executed_by_a_worker_and_reported(workspace: Path) -> None:
    with ScriptedOpenAIServer(FIX) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
        assert (workspace / "calc.py").read_text().count("a + b") == 1  # submit returned before anything ran
        queued = json.loads(chrysalis("queue", "--json").stdout)
        assert [(r["id"], r["status"], r["urgency"], r["task"]) for r in queued] == [
            (run_id, "queued", "normal", "fix the failing test")
        ]
        done = work()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "a - b" in (workspace / "calc.py").read_text()
    record = run_record(run_id)
    assert record["status"] == "done" and record["result"]["output"] == "Fixed."
    kinds = [e["type"] for e in events(run_id)]
    assert kinds[0] == "start" and kinds[-1] == "final"
    assert kinds.count("tool_call") == 2 and "check" in kinds
    assert all(e["run_id"] == run_id for e in events(run_id))


def test_runs_start_by_urgency_then_in_the_order_submitted(workspace: Path) -> None:
    answer = [ScriptedReply(text="ok")] * 4
    with ScriptedOpenAIServer(answer) as server:
        ids = [
            submit(f"say ok {urgency} {i}", workspace, server.base_url, "--urgency", urgency, "--mode", "ask")
            for i, urgency in enumerate(["low", "normal", "critical", "normal"])
        ]
        done = work()
    assert done.returncode == 0, done.stdout + done.stderr
    starts = {run_id: events(run_id)[0]["ts"] for run_id in ids}
    order = sorted(ids, key=starts.__getitem__)
    assert order == [ids[2], ids[1], ids[3], ids[0]]


def test_a_cancelled_run_never_starts(workspace: Path) -> None:
    with ScriptedOpenAIServer(FIX) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
        cancelled = chrysalis("cancel", run_id, "--json")
        assert cancelled.returncode == 0, cancelled.stderr
        assert json.loads(cancelled.stdout) == {"id": run_id, "status": "cancelled"}
        done = work()
        assert done.returncode == 0, done.stderr
        assert server.requests == []
    assert run_record(run_id)["status"] == "cancelled"
    assert "a + b" in (workspace / "calc.py").read_text()
    again = chrysalis("cancel", run_id)
    assert_clean_error(again, 2, "already finished")


def test_bad_input_exits_2_naming_it(workspace: Path) -> None:
    assert_clean_error(chrysalis("submit", "  "), 2, "task is empty")
    assert_clean_error(chrysalis("submit", "fix it", "--urgency", "soon"), 2, "--urgency", "critical")
    assert_clean_error(chrysalis("submit", "fix it", "--level", "9"), 2, "level")
    assert_clean_error(chrysalis("show", "nope"), 2, "No run 'nope'", "chrysalis queue")
    assert_clean_error(chrysalis("cancel", "nope"), 2, "No run 'nope'")
    assert_clean_error(chrysalis("worker", "--concurrency", "0"), 2, "--concurrency")
    database = Path(os.environ["CHRYSALIS_HOME"]) / "runtime.sqlite"
    if database.exists():  # the worker made it; no refused submit left a run behind
        with sqlite3.connect(database) as db:
            assert db.execute("select count(*) from runs").fetchone() == (0,)


def test_run_durable_streams_its_events_and_exits_like_run(workspace: Path) -> None:
    with ScriptedOpenAIServer(FIX) as server:
        done = chrysalis(
            "run",
            "--durable",
            "fix the failing test",
            "--json",
            *scripted(server.base_url),
            "--level",
            "2",
            "--yes",
            "--workspace",
            str(workspace),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    kinds = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert kinds[0] == "start" and kinds[-1] == "final" and kinds.count("tool_call") == 2
    assert "a - b" in (workspace / "calc.py").read_text()
    [record] = json.loads(chrysalis("queue", "--json").stdout)
    assert record["status"] == "done" and record["urgency"] == "critical"


def test_an_interrupted_durable_run_is_resumed_by_a_worker(workspace: Path) -> None:
    replies = iter([ScriptedReply(text="never delivered", held=True), *FIX])
    with ScriptedOpenAIServer(lambda _body: next(replies), max_requests=10) as server:
        run = spawn(
            "run",
            "--durable",
            "fix the failing test",
            *scripted(server.base_url),
            "--level",
            "2",
            "--yes",
            "--workspace",
            str(workspace),
        )
        try:
            assert server.wait_for_requests(1, timeout=CLI_HANG_GUARD)
        finally:
            run.send_signal(signal.SIGINT)
            _out, err = finish(run)
        assert run.returncode == 130, err
        assert "chrysalis worker` resumes it" in err and "Traceback" not in err
        [record] = json.loads(chrysalis("queue", "--json").stdout)
        assert record["status"] == "running"
        resumed = work()
        assert resumed.returncode == 0, resumed.stderr
    assert run_record(record["id"])["status"] == "done"
    assert "a - b" in (workspace / "calc.py").read_text()


def test_a_running_run_cancelled_stops_at_its_next_step(workspace: Path) -> None:
    replies = iter([ScriptedReply(tool_calls=(("read_file", {"path": "calc.py"}),), held=True), *FIX[1:]])
    with ScriptedOpenAIServer(lambda _body: next(replies), max_requests=10) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
        worker = spawn("worker", "--exit-when-idle")
        try:
            assert server.wait_for_requests(1, timeout=CLI_HANG_GUARD)
            cancelled = chrysalis("cancel", run_id)
            assert cancelled.returncode == 0 and f"Cancelled run {run_id}" in cancelled.stdout, cancelled.stderr
        finally:
            server.release()
            _out, err = finish(worker)
        assert worker.returncode == 0, err
        assert len(server.requests) == 1  # the reply that came back was the run's last step
    assert run_record(run_id)["status"] == "cancelled"
    assert "a + b" in (workspace / "calc.py").read_text()
    assert not list((Path(os.environ["CHRYSALIS_HOME"]) / "logs").glob("bug-*"))


def test_show_follow_prints_a_finished_runs_events_and_returns(workspace: Path) -> None:
    with ScriptedOpenAIServer(FIX) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
        assert work().returncode == 0
    shown = chrysalis("show", run_id, "--follow")
    assert shown.returncode == 0, shown.stderr
    assert "→ edit_file" in shown.stdout and f"run {run_id}: done" in shown.stdout
    assert_clean_error(chrysalis("worker", "--queue-concurrency", "0"), 2, "--queue-concurrency")


def test_queue_watch_shows_a_live_table_until_ctrl_c(workspace: Path) -> None:
    with ScriptedOpenAIServer(FIX) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
    watch = spawn("queue", "--watch")
    try:
        assert watch.stdout is not None
        seen = ""
        while run_id not in seen:  # the first frame is drawn at once
            line = watch.stdout.readline()
            assert line, watch.stderr.read() if watch.stderr else ""
            seen += line
    finally:
        watch.send_signal(signal.SIGINT)
        _out, err = finish(watch)
    assert watch.returncode == 0, err
    assert "queued" in seen and "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [["submit", "fix it"], ["queue"], ["show", "abc"], ["worker", "--exit-when-idle"], ["approvals"]],
    ids=["submit", "queue", "show", "worker", "approvals"],
)
def test_a_database_that_cannot_be_reached_is_a_clear_error_without_its_password(args: list[str]) -> None:
    env = {"CHRYSALIS_DATABASE_URL": "postgresql://someone:s3cret@127.0.0.1:1/nowhere"}
    done = chrysalis(*args, env=env)
    assert_clean_error(
        done,
        2,
        "Cannot open the runtime database postgresql://someone:***@127.0.0.1:1/nowhere",
        "CHRYSALIS_DATABASE_URL",
    )
    assert "s3cret" not in done.stdout + done.stderr
