"""``chrysalis approve`` wakes the waiting run with a DBOS message, not by the run's next look at the store.

The run waits in ``DBOS.recv`` for 600 s (``durable._APPROVAL_WAIT_S``); without a pushed message
DBOS looks at its table again only every 60 s. A worker that keeps running takes the run to its end
well before either once the decision is sent: on SQLite through DBOS's 0.1 s listener, on PostgreSQL
through LISTEN/NOTIFY, whose trigger a database first set up by ``submit`` used to lack (``wakeup``).
Each PostgreSQL test gets a database of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from dbos import EnqueueOptions
from sqlalchemy import text

from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.runtime.approvals import ApprovalRequest, ApprovalStore
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.queue import APP_VERSION, QUEUE, WORKFLOW, approval_topic, client
from chrysalis.runtime.runs import RunStore
from chrysalis.runtime.wakeup import has_trigger
from tests.helpers import CLI_HANG_GUARD, chrysalis
from tests.postgres import postgres_database
from tests.runtime.queue_helpers import finish, folder_without_tests, spawn, submit

SCRIPT = [ScriptedReply.tool_call("shell", {"command": "echo approved > out.txt"}), ScriptedReply(text="Finished.")]
BEFORE_DBOS_RECHECK_S = 45.0
"""Not a speed limit: DBOS's fallback look at an unsignalled wait comes after 60 s, the wait's timeout after 600 s."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder with no tests (so no final check asks the model for more)."""
    return folder_without_tests(tmp_path)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """The runtime database's URL: SQLite under CHRYSALIS_HOME, or a fresh PostgreSQL database of this test's own."""
    if request.param == "sqlite":
        return database_url(load_settings({}))
    return str(request.getfixturevalue("postgresql_url"))  # also CHRYSALIS_DATABASE_URL, for the CLI


def _until(what: str, ready: Callable[[], bool], guard: float = CLI_HANG_GUARD) -> None:
    deadline = time.monotonic() + guard
    while not ready():
        assert time.monotonic() < deadline, f"still waiting for {what} after {guard:.0f} s"
        time.sleep(0.05)


def _request(store: ApprovalStore) -> ApprovalRequest | None:
    pending = store.pending()
    return pending[0] if pending else None


def test_approve_wakes_a_run_waiting_on_a_running_worker(database: str, workspace: Path) -> None:
    assert chrysalis("keys", "init").returncode == 0
    engine = open_engine(database)
    with ScriptedOpenAIServer(SCRIPT) as server:
        run_id = submit("write out.txt", workspace, server.base_url, "--level", "3", "--mode", "code")
        worker = spawn("worker")  # keeps running: no new worker picks the run up from the store
        try:
            runs, store = RunStore(engine), ApprovalStore(engine)
            _until("the approval request", lambda: _request(store) is not None)
            _until("the run to wait", lambda: runs.get(run_id).status == "waiting_approval")
            request = _request(store)
            assert request is not None
            assert chrysalis("approve", request.id).returncode == 0
            _until("the run to go on", lambda: runs.get(run_id).finished, guard=BEFORE_DBOS_RECHECK_S)
            assert runs.get(run_id).status == "done" and len(server.requests) == 2
        finally:
            worker.terminate()
            finish(worker)
            engine.dispose()
    assert (workspace / "out.txt").read_text().strip() == "approved"


def test_a_client_gives_a_postgresql_database_the_trigger_that_pushes_messages() -> None:
    with postgres_database() as fresh:
        engine = open_engine(fresh)
        try:
            with client(fresh):  # a submit on an empty database: DBOS's client migration leaves the trigger out
                pass
            assert has_trigger(engine)
            with engine.begin() as conn:  # a database set up before the fix
                conn.execute(text("DROP TRIGGER dbos_notifications_trigger ON dbos.notifications"))
            # approve's way: DBOS's client works through the store's engine; it mends the trigger the same
            with client(fresh, engine) as dbos_client, psycopg.connect(fresh, autocommit=True) as listener:
                listener.execute("LISTEN dbos_notifications_channel")
                queued: EnqueueOptions = {"queue_name": QUEUE, "workflow_name": WORKFLOW, "workflow_id": "r"}
                dbos_client.enqueue({**queued, "app_version": APP_VERSION}, "r")  # no worker here: it stays queued
                dbos_client.send("r", "decided", topic=approval_topic("r1"))
                [pushed] = list(listener.notifies(timeout=CLI_HANG_GUARD, stop_after=1))
            assert pushed.payload == f"r::{approval_topic('r1')}"
            assert has_trigger(engine)  # through the engine given, which the client left open
        finally:
            engine.dispose()
