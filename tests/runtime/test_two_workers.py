"""Two workers share one queue: each run is executed once, and a worker killed mid-run is taken over.

Run on SQLite (one machine) and on PostgreSQL (``TEST_POSTGRES_URL``, as many machines would share
it; ``.ci/run`` starts Debian's PostgreSQL). Each PostgreSQL test gets a database of its own.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import CLI_HANG_GUARD
from tests.runtime.queue_helpers import events, finish, run_record, spawn, submit


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """The runtime database the workers share: SQLite under CHRYSALIS_HOME, or a fresh PostgreSQL database."""
    if request.param == "postgresql":
        request.getfixturevalue("postgresql_url")  # sets CHRYSALIS_DATABASE_URL
    return str(request.param)


def _worker(*flags: str) -> subprocess.Popen[str]:
    return spawn("worker", *flags)


def _finish(worker: subprocess.Popen[str]) -> tuple[int, str]:
    _out, err = finish(worker)
    return worker.returncode, err


def test_each_run_is_executed_by_one_worker_only(database: str, tmp_path: Path) -> None:
    del database
    with ScriptedOpenAIServer(lambda _body: ScriptedReply(text="ok"), max_requests=100) as server:
        ids = [submit(f"say ok {i}", tmp_path, server.base_url, "--mode", "ask") for i in range(6)]
        workers = [_worker("--exit-when-idle", "--concurrency", "2") for _ in range(2)]  # at once, one queue
        results = [_finish(worker) for worker in workers]
        assert all(code == 0 for code, _err in results), results
        assert len(server.requests) == len(ids)  # one model request per run: no run was executed twice
    assert all(run_record(run_id)["status"] == "done" for run_id in ids)


def test_a_run_whose_worker_is_killed_is_finished_by_the_other(database: str, workspace: Path) -> None:
    del database
    replies = iter(
        [
            ScriptedReply(text="never delivered", held=True),
            ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
            ScriptedReply(text="Fixed."),
        ]
    )

    def model(_body: dict[str, Any]) -> ScriptedReply:
        return next(replies)

    with ScriptedOpenAIServer(model, max_requests=10) as server:
        run_id = submit("fix the failing test", workspace, server.base_url, "--level", "2", "--yes")
        doomed = _worker()
        try:
            assert server.wait_for_requests(1, timeout=CLI_HANG_GUARD)  # the run is in its model request there
            assert run_record(run_id)["status"] == "running"
        finally:
            doomed.send_signal(signal.SIGKILL)
            finish(doomed)
        survivor = _worker("--exit-when-idle")
        code, err = _finish(survivor)
        assert code == 0, err
        assert len(server.requests) == 3
    record = run_record(run_id)
    assert record["status"] == "done", err
    assert f"-{survivor.pid}-" in record["worker"] and f"-{doomed.pid}-" not in record["worker"]
    assert "a - b" in (workspace / "calc.py").read_text()
    assert [e["type"] for e in events(run_id)].count("start") == 1
