"""Every command that opens the runtime database, started at one instant on an empty one: none fails (issue 32).

``submit``, two ``worker --exit-when-idle``, ``serve --http`` (with its own worker), ``approve`` of an id
that does not exist and ``approvals`` are released together (each waits on a pipe once Python has
started: ``release_together``), ten times, each time on a new database: SQLite under a new
CHRYSALIS_HOME, and a PostgreSQL database of its own. They all migrate our tables at the same moment
(Alembic, under our lock), and all but ``approve``/``approvals`` DBOS's (``dbos_tables``: one process at
a time) and, on PostgreSQL, its notification trigger. The test waits on events only: the processes'
ends, the service's "serving on" line, its answer, and its event stream's end for the run.

Then what each fix stands on, shown directly: SQLite's switch to WAL while another process writes,
and our lock around DBOS's migrations.
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import threading
import time
import types
from pathlib import Path

import httpx
import pytest
from sqlalchemy.exc import OperationalError

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.runtime import database, dbos_tables
from chrysalis.runtime.database import open_engine
from chrysalis.runtime.dbos_tables import migrating
from tests.helpers import CLI_HANG_GUARD, assert_clean_error
from tests.postgres import postgres_database
from tests.runtime.migration_helpers import StderrLines, ended, home_in, release_together
from tests.runtime.queue_helpers import folder_without_tests

STARTS = 5
"""How many times the racing start is tried, each on a new database: 5, down from 10, to keep CI under 30 minutes."""

_SERVING = re.compile(r"serving on (http://\S+?) ")


def _race(model_url: str, workspace: Path, env: dict[str, str]) -> None:
    """The six commands at one instant: the service answers, each other ends as it would alone, the run is done."""
    submit = ["submit", "say ok", "--json", "--base-url", model_url, "--model", "scripted", "--mode", "ask"]
    worker = ["worker", "--exit-when-idle"]
    processes = release_together(
        ["serve", "--http", "--port", "0", "--workspace", str(workspace)],
        [*submit, "--workspace", str(workspace)],
        worker,
        worker,
        ["approve", "nosuch1"],
        ["approvals"],
        env=env,
    )
    service, *others = processes
    try:
        lines = StderrLines(service)
        with httpx.Client(base_url=lines.wait_for(_SERVING).group(1), timeout=CLI_HANG_GUARD) as client:
            assert client.get("/v1/health").json()["status"] == "ok"  # while the others may still be starting
            submitted, first, second, approved, listed = (_completed(process) for process in others)
            for done in (submitted, first, second, listed):
                assert done.returncode == 0 and "Traceback" not in done.stderr, (done.args, done.stderr)
            assert_clean_error(approved, 2, "No approval request 'nosuch1'")
            assert "No approval is pending." in listed.stdout
            run_id = json.loads(submitted.stdout)["id"]
            with client.stream("GET", f"/v1/runs/{run_id}/events") as events:  # ends once the run has
                data = [json.loads(line[5:]) for line in events.iter_lines() if line.startswith("data:")]
        assert data[-1] == {"id": run_id, "status": "done"}, data  # run by a worker, or by the service's own
        service.send_signal(signal.SIGTERM)  # as a service manager stops it
        said = lines.rest()
        assert service.returncode == 130, said
        assert "chrysalis serve --http: stopped" in said and "Traceback" not in said, said
    finally:
        for process in processes:  # a failed assertion leaves none running
            if process.poll() is None:
                process.kill()
                process.wait()


def _completed(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    code, out, err = ended(process)
    return subprocess.CompletedProcess(process.args, code, out, err)


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_every_command_started_at_once_on_an_empty_database(engine: str, tmp_path: Path) -> None:
    workspace = folder_without_tests(tmp_path)
    for attempt in range(STARTS):  # a model server per attempt: each bounds its own life (max_seconds)
        with ScriptedOpenAIServer(lambda _body: ScriptedReply(text="ok"), max_requests=10) as model:
            env = home_in(tmp_path, f"home{attempt}")
            if engine == "sqlite":
                _race(model.base_url, workspace, env)
            else:
                with postgres_database() as fresh:
                    _race(model.base_url, workspace, {**env, "CHRYSALIS_DATABASE_URL": fresh})
            assert len(model.requests) == 1  # the run was executed once


def test_a_new_sqlite_database_held_by_another_process_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Switching to WAL while another process writes is "database is locked" at once, busy timeout or not.

    Before, ``chrysalis approvals`` then exited 2 ("Cannot open the runtime database …: database is
    locked"); now the switch is tried again until the writer has committed.
    """
    path = tmp_path / "runtime.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # a process writing to the new file (still in rollback-journal mode)
    holder.execute("INSERT INTO t VALUES (1)")
    retrying = threading.Event()
    """Set when the opener pauses before trying again (or has given up: then the test fails at once)."""

    def pause(seconds: float) -> None:
        retrying.set()
        threading.Event().wait(seconds)

    monkeypatch.setattr(database, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=pause))
    engine = open_engine(f"sqlite:///{path}")
    outcome: list[object] = []

    def open_it() -> None:
        try:
            with engine.connect() as conn:
                outcome.append(conn.exec_driver_sql("PRAGMA journal_mode").scalar())
        except OperationalError as exc:
            outcome.append(exc)
            retrying.set()

    opener = threading.Thread(target=open_it)
    opener.start()
    assert retrying.wait(CLI_HANG_GUARD)
    assert outcome == []  # refused once, and trying again while the writer holds the file
    holder.execute("COMMIT")
    holder.close()
    opener.join(CLI_HANG_GUARD)
    engine.dispose()
    assert outcome == ["wal"]


def test_processes_letting_dbos_migrate_take_turns_however_long_it_takes(
    postgresql_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DBOS's own lock is given up after 30 s (then two processes ran the same DDL); ours is waited for, polling."""
    engine = open_engine(postgresql_url)
    asked = threading.Event()
    """Set when the second process has been refused the lock and pauses before asking again."""
    entered = threading.Event()

    def pause(seconds: float) -> None:
        asked.set()
        threading.Event().wait(seconds)

    def second() -> None:
        with migrating(engine):
            entered.set()

    monkeypatch.setattr(dbos_tables, "time", types.SimpleNamespace(sleep=pause))
    waiter = threading.Thread(target=second)
    with migrating(engine):  # the first, migrating
        waiter.start()
        assert asked.wait(CLI_HANG_GUARD)
        assert not entered.is_set()
    waiter.join(CLI_HANG_GUARD)
    assert entered.is_set()
    engine.dispose()
