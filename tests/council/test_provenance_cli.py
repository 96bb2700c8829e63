"""``chrysalis provenance verify RUN [--json]`` on a real runtime database: exit 0, 1 (named) or 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sqlalchemy import text

from chrysalis.config import load_settings
from chrysalis.council.records import Recorder
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.keys import records_key
from chrysalis.runtime.runs import RunStore
from tests.helpers import assert_clean_error, chrysalis

RUN = "council-cli"


@pytest.fixture
def council() -> list[str]:
    """A council run of four records signed with this home's records key; their fingerprints."""
    key = records_key(Path(os.environ["CHRYSALIS_HOME"]))
    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        runs.add(RUN, "council: tabs in parse()", "normal", {})
        recorder = Recorder.for_run(runs, RUN, key)
        made = [
            recorder.append("topic", None, {"text": "tabs?"}),
            recorder.append("review", "ada", {"text": "fine"}),
            recorder.append("review", "lea", {"text": "name it"}),
            recorder.append("verdict", None, {"decision": "accept"}),
        ]
    return [record.fingerprint for record in made]


def _store_event(key: str, event: str) -> None:
    with RunStore(open_engine(database_url(load_settings({})))) as runs, runs.engine.begin() as conn:
        conn.execute(
            text("UPDATE run_events SET event = :e WHERE run_id = :r AND key = :k"), {"e": event, "r": RUN, "k": key}
        )


def test_a_council_verifies_with_its_count(council: list[str]) -> None:
    done = chrysalis("provenance", "verify", RUN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Run {RUN}: 4 council records verified" in done.stdout
    as_json = chrysalis("provenance", "verify", RUN, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == {"run_id": RUN, "ok": True, "verified": 4, "first_bad": None}


def test_a_changed_byte_exits_1_naming_the_record(council: list[str]) -> None:
    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        stored = dict(runs.events(RUN))
    event = next(e for e in stored.values() if e["record"]["seq"] == 3)
    event["record"]["data"]["text"] = "name iT"
    _store_event("record-3", json.dumps(event))
    done = chrysalis("provenance", "verify", RUN, "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["verified"] == 2
    assert report["first_bad"]["seq"] == 3 and report["first_bad"]["type"] == "review"
    assert report["first_bad"]["persona"] == "lea"
    assert report["first_bad"]["reason"].startswith("fingerprint does not match its content")
    said = chrysalis("provenance", "verify", RUN)
    assert said.returncode == 1 and "record 3 (review, lea) is bad: fingerprint does not match" in said.stdout


def test_a_damaged_row_exits_1_without_a_traceback(council: list[str]) -> None:
    _store_event("record-2", '{"type": "council_record", "record": {"seq": 2,')
    done = chrysalis("provenance", "verify", RUN, "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["first_bad"] == {
        "seq": 2, "type": None, "persona": None, "reason": "its stored event is not JSON",
    }  # fmt: skip


def test_an_unknown_run_exits_2(council: list[str]) -> None:
    assert_clean_error(chrysalis("provenance", "verify", "no-such-run", "--json"), 2, "No run 'no-such-run'")


def test_another_homes_key_exits_1_as_signed_by_another_key(council: list[str], tmp_path: Path) -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    for half in ("records_ed25519", "records_ed25519.pub"):
        (home / "keys" / half).rename(tmp_path / half)
    records_key(home)  # a new pair: the council was signed with the old one
    done = chrysalis("provenance", "verify", RUN, "--json")
    assert done.returncode == 1, done.stderr
    first_bad = json.loads(done.stdout)["first_bad"]
    assert (first_bad["seq"], first_bad["type"], first_bad["persona"]) == (1, "topic", None)
    assert first_bad["reason"].startswith("signed by another key")
    (home / "keys" / "records_ed25519.pub").unlink()
    (home / "keys" / "records_ed25519").unlink()
    assert_clean_error(chrysalis("provenance", "verify", RUN), 2, "No council records key at")
