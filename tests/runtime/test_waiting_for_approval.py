"""A durable run that needs a person's signature waits for it without holding a worker, then goes on.

The run (level 3, no ``--yes``) asks to run a shell command: it becomes ``waiting_approval``, the
worker exits as idle, and ``chrysalis approvals`` shows the request. Once signed (or refused) with
``chrysalis approve``, the next worker resumes the run from its records: the command runs only on a
verified envelope, never on a forged one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.runtime.database import database_url, open_engine
from tests.helpers import chrysalis
from tests.runtime.queue_helpers import folder_without_tests, run_record, submit, work

COMMAND = "echo approved > out.txt"
SCRIPT = [ScriptedReply.tool_call("shell", {"command": COMMAND}), ScriptedReply(text="Finished.")]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder with no tests (so no final check asks the model for more)."""
    return folder_without_tests(tmp_path)


def _pending() -> list[dict[str, object]]:
    done = chrysalis("approvals", "--json")
    assert done.returncode == 0, done.stderr
    pending: list[dict[str, object]] = json.loads(done.stdout)
    return pending


def _waiting_run(workspace: Path, server: ScriptedOpenAIServer) -> tuple[str, str]:
    """Submit the run and let a worker take it to its approval request; returns (run id, request id)."""
    run_id = submit("write out.txt", workspace, server.base_url, "--level", "3", "--mode", "code")
    idle = work()
    assert idle.returncode == 0, idle.stdout + idle.stderr
    assert run_record(run_id)["status"] == "waiting_approval"
    [request] = _pending()
    assert request["run_id"] == run_id and request["tool"] == "shell" and request["args"] == {"command": COMMAND}
    assert not (workspace / "out.txt").exists()
    return run_id, str(request["id"])


def test_a_signed_approval_lets_the_waiting_run_go_on(workspace: Path) -> None:
    assert chrysalis("keys", "init").returncode == 0
    with ScriptedOpenAIServer(SCRIPT) as server:
        run_id, request_id = _waiting_run(workspace, server)
        signed = chrysalis("approve", request_id)
        assert signed.returncode == 0, signed.stderr
        done = work()
        assert done.returncode == 0, done.stdout + done.stderr
        assert len(server.requests) == 2  # the first reply was replayed from its record, not asked again
    assert (workspace / "out.txt").read_text().strip() == "approved"
    record = run_record(run_id)
    assert record["status"] == "done" and record["result"]["output"] == "Finished."
    assert _pending() == []


def test_a_denied_action_never_runs_and_the_run_goes_on(workspace: Path) -> None:
    assert chrysalis("keys", "init").returncode == 0
    with ScriptedOpenAIServer(SCRIPT) as server:
        run_id, request_id = _waiting_run(workspace, server)
        assert chrysalis("approve", request_id, "--deny").returncode == 0
        done = work()
        assert done.returncode == 0, done.stdout + done.stderr
        told = json.dumps(server.requests[-1]["messages"])
    assert not (workspace / "out.txt").exists()
    assert "declined" in told
    assert run_record(run_id)["status"] == "done"


def test_a_forged_envelope_is_refused_logged_and_the_run_keeps_waiting(workspace: Path) -> None:
    assert chrysalis("keys", "init").returncode == 0
    with ScriptedOpenAIServer(SCRIPT) as server:
        run_id, request_id = _waiting_run(workspace, server)
        assert chrysalis("approve", request_id).returncode == 0
        engine = open_engine(database_url(load_settings({})))
        with engine.begin() as conn:  # someone with database access swaps in another signature
            row = conn.execute(text("select envelope from approval_requests where id = :id"), {"id": request_id})
            envelope = json.loads(row.scalar_one())
            envelope["signature"] = envelope["signature"][::-1]
            conn.execute(
                text("update approval_requests set envelope = :e where id = :id"),
                {"e": json.dumps(envelope), "id": request_id},
            )
        done = work()
        assert done.returncode == 0, done.stdout + done.stderr
        with engine.connect() as conn:
            logged = conn.execute(text("select kind from approval_log where request_id = :id"), {"id": request_id})
            kinds = [r[0] for r in logged]
        engine.dispose()
    assert kinds and kinds[0] in ("forged", "malformed")
    assert not (workspace / "out.txt").exists()
    assert run_record(run_id)["status"] == "waiting_approval"
    assert [r["id"] for r in _pending()] == [request_id]


def test_an_encrypted_key_signs_with_its_passphrase_and_the_worker_never_needs_it(workspace: Path) -> None:
    unlock = {"CHRYSALIS_KEY_PASSPHRASE": "a long passphrase"}
    made = chrysalis("keys", "init", "--passphrase", "--json", env=unlock)
    assert made.returncode == 0 and json.loads(made.stdout)["encrypted"] is True, made.stderr
    with ScriptedOpenAIServer(SCRIPT) as server:
        run_id, request_id = _waiting_run(workspace, server)  # the worker verifies with the public key only
        locked = chrysalis("approve", request_id)  # no variable, no terminal: nothing signed
        assert locked.returncode == 2 and "is encrypted and no passphrase was given" in locked.stderr
        assert [r["id"] for r in _pending()] == [request_id]
        signed = chrysalis("approve", request_id, env=unlock)
        assert signed.returncode == 0, signed.stderr
        done = work()
        assert done.returncode == 0, done.stdout + done.stderr
    assert (workspace / "out.txt").read_text().strip() == "approved"
    assert run_record(run_id)["status"] == "done"
