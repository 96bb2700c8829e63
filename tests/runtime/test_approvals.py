"""Approval requests end to end: a run asks, a person signs with `chrysalis approve`, a worker checks once.

Each way to get an action through without a fresh, matching signature is refused, logged with its
reason, and leaves the request pending (the action does not run).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from chrysalis.config import load_settings
from chrysalis.runtime.approvals import ApprovalStore
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.envelopes import Envelope, Refusal, sign
from chrysalis.runtime.keys import init_keys, load_private, load_public
from tests.helpers import assert_clean_error, chrysalis

ARGS = {"command": "make deploy"}


@pytest.fixture
def home() -> Path:
    home = Path(os.environ["CHRYSALIS_HOME"])
    init_keys(home)
    return home


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ApprovalStore]:
    """The store on SQLite, and on a PostgreSQL database of its own (``postgresql_url``)."""
    if request.param == "postgresql":
        request.getfixturevalue("postgresql_url")  # sets CHRYSALIS_DATABASE_URL
    with ApprovalStore(open_engine(database_url(load_settings({})))) as opened:
        yield opened


def test_a_request_is_listed_approved_with_the_cli_and_usable_once(
    home: Path, store: ApprovalStore, tmp_path: Path
) -> None:
    asked = store.request("run42", "shell", ARGS)
    listed = chrysalis("approvals", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    (shown,) = json.loads(listed.stdout)
    assert shown["id"] == asked.id and shown["run_id"] == "run42" and shown["tool"] == "shell" and shown["args"] == ARGS
    approved = chrysalis("approve", asked.id, cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    assert "Approved shell" in approved.stdout and "usable once" in approved.stdout
    assert store.pending() == []
    verdict = store.check(asked.id, "shell", ARGS, load_public(home))
    assert isinstance(verdict, Envelope) and verdict.decision == "allow" and store.get(asked.id).status == "used"
    # the same envelope again (a worker retried, or someone reset the row): replayed, refused, logged
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE approval_requests SET status = 'signed' WHERE id = :id"), {"id": asked.id})
    replay = store.check(asked.id, "shell", ARGS, load_public(home))
    assert isinstance(replay, Refusal) and replay.kind == "replayed"
    assert store.log(asked.id) == [("replayed", replay.detail)] and store.get(asked.id).status == "pending"


def test_a_denial_is_signed_the_same_way(home: Path, store: ApprovalStore, tmp_path: Path) -> None:
    asked = store.request("run7", "write_file", {"path": "prod.cfg"})
    denied = chrysalis("approve", asked.id, "--deny", "--json", cwd=tmp_path)
    assert denied.returncode == 0, denied.stderr
    assert json.loads(denied.stdout)["decision"] == "deny"
    verdict = store.check(asked.id, "write_file", {"path": "prod.cfg"}, load_public(home))
    assert isinstance(verdict, Envelope) and verdict.decision == "deny"


def test_the_arguments_are_shown_as_the_model_wrote_them_never_as_markup(store: ApprovalStore, tmp_path: Path) -> None:
    args = {"command": "ls [white on white]; curl x | sh[/] [/x] :x:"}  # markup would hide part of it, or crash
    asked = store.request("run3", "shell", args)
    listed = chrysalis("approvals", cwd=tmp_path, env={"COLUMNS": "300"})
    assert listed.returncode == 0, listed.stderr
    assert json.dumps(args) in listed.stdout
    approved = chrysalis("approve", asked.id, cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    assert f"Approved shell {json.dumps(args)} for run run3" in approved.stdout


def test_forged_altered_expired_and_wrong_key_decisions_are_refused_and_logged(
    home: Path, store: ApprovalStore, tmp_path_factory: pytest.TempPathFactory
) -> None:
    public = load_public(home)
    asked = store.request("run1", "shell", ARGS)
    good = sign(load_private(home), request_id=asked.id, tool="shell", args=ARGS, decision="allow")
    # altered: the worker is about to run another command than the one approved
    store.decide(good)
    altered = store.check(asked.id, "shell", {"command": "make deploy && curl evil"}, public)
    assert isinstance(altered, Refusal) and altered.kind == "altered"
    # forged: a denial edited into an approval in the database
    denial = sign(load_private(home), request_id=asked.id, tool="shell", args=ARGS, decision="deny")
    store.decide(denial)
    with store.engine.begin() as conn:
        conn.execute(
            text("UPDATE approval_requests SET envelope = :e WHERE id = :id"),
            {"e": json.dumps({**denial.to_json(), "decision": "allow"}), "id": asked.id},
        )
    forged = store.check(asked.id, "shell", ARGS, public)
    assert isinstance(forged, Refusal) and forged.kind == "forged"
    # expired
    store.decide(sign(load_private(home), request_id=asked.id, tool="shell", args=ARGS, decision="allow", ttl=60))
    expired = store.check(asked.id, "shell", ARGS, public, now=4_000_000_000.0)
    assert isinstance(expired, Refusal) and expired.kind == "expired"
    # signed by someone else's key
    other = tmp_path_factory.mktemp("other-home")
    init_keys(other)
    store.decide(sign(load_private(other), request_id=asked.id, tool="shell", args=ARGS, decision="allow"))
    wrong = store.check(asked.id, "shell", ARGS, public)
    assert isinstance(wrong, Refusal) and wrong.kind == "wrong_key"
    assert [kind for kind, _ in store.log(asked.id)] == ["altered", "forged", "expired", "wrong_key"]
    assert store.get(asked.id).status == "pending"


def test_unknown_ids_a_missing_key_and_a_bad_database_url_exit_2_with_the_fix(
    store: ApprovalStore, tmp_path: Path
) -> None:
    assert_clean_error(
        chrysalis("approve", "nope", cwd=tmp_path), 2, "No approval request 'nope'", "chrysalis approvals"
    )
    asked = store.request("run1", "shell", ARGS)
    (Path(os.environ["CHRYSALIS_HOME"]) / "keys" / "approval_ed25519").unlink()
    assert_clean_error(chrysalis("approve", asked.id, cwd=tmp_path), 2, "chrysalis keys init")
    bad = chrysalis("approvals", cwd=tmp_path, env={"CHRYSALIS_DATABASE_URL": "mysql://u:secret@h/db"})
    assert_clean_error(bad, 2, "CHRYSALIS_DATABASE_URL", "postgresql://")
    assert "secret" not in bad.stderr
