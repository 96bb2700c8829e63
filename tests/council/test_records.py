"""The council's records: a chain that verifies, and every way of changing it named at the first bad record."""

from __future__ import annotations

import base64
import copy
import itertools
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from chrysalis.config import load_settings
from chrysalis.council import records as records_module
from chrysalis.council.clocks import goes_back, tick
from chrysalis.council.provenance import BadRecord, verify_records, verify_run
from chrysalis.council.records import DOMAIN, Record, Recorder, canonical, seal
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.runtime import envelopes
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.keys import fingerprint
from chrysalis.runtime.runs import RunStore

KEY = Ed25519PrivateKey.generate()
OTHER = Ed25519PrivateKey.generate()
RUN = "council-1"
SPEAKERS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("topic", None, {"text": "Should parse() accept tabs?"}),
    ("review", "ada", {"text": "Composable enough.", "score": 0.75}),
    ("review", "lea", {"text": "Name the flag.", "tags": ["dx", "docs"]}),
    ("vote", "phil", {"choice": "yes", "confidence": 0.7}),
    ("verdict", None, {"decision": "accept"}),
]


def chain(key: Ed25519PrivateKey = KEY, run_id: str = RUN) -> list[dict[str, Any]]:
    """Five records as the store keeps them."""
    recorder = Recorder(run_id, key)
    return [recorder.append(kind, persona, data).to_json() for kind, persona, data in SPEAKERS]


def bad(records: list[dict[str, Any]], run_id: str = RUN) -> BadRecord:
    """The first bad record; every record before it verified."""
    result = verify_records(records, KEY.public_key(), run_id)
    assert not result.ok and result.first_bad is not None
    assert verify_records(records[: result.verified], KEY.public_key(), run_id).ok
    return result.first_bad


def test_a_chain_verifies_with_its_count_and_each_record_links_to_the_one_before() -> None:
    records = chain()
    result = verify_records(records, KEY.public_key(), RUN)
    assert result.to_json() == {"run_id": RUN, "ok": True, "verified": 5, "first_bad": None}
    assert [r["seq"] for r in records] == [1, 2, 3, 4, 5]
    assert records[0]["prev"] is None
    assert all(later["prev"] == earlier["fingerprint"] for earlier, later in itertools.pairwise(records))
    assert [r["vc"] for r in records][-1] == {"ada": 1, "council": 2, "lea": 1, "phil": 1}
    assert len(records[0]["fingerprint"]) == 96 and len(records[0]["signature"]) == 128
    assert records[0]["key"] == fingerprint(KEY.public_key())
    assert verify_records([], KEY.public_key(), RUN).to_json()["verified"] == 0


def test_a_changed_byte_in_the_data_is_named_at_its_record() -> None:
    records = chain()
    records[2]["data"]["text"] = "Name the flaG."
    assert bad(records) == BadRecord(3, "review", "lea", bad(records).reason)
    assert bad(records).reason.startswith("fingerprint does not match its content")


@pytest.mark.parametrize(
    ("field", "value"),
    [("type", "verdict"), ("persona", "david"), ("vc", {"ada": 1, "council": 1, "lea": 2}), ("key", "0" * 16)],
)
def test_every_signed_field_is_covered_by_the_fingerprint(field: str, value: Any) -> None:
    records = chain()
    records[2][field] = value
    found = bad(records)
    assert found.seq == 3 and found.reason.startswith("fingerprint does not match")


def test_a_record_copied_into_another_run_does_not_verify_there() -> None:
    assert bad(chain(), run_id="council-2").seq == 1


def test_swapped_clocks_are_caught_and_a_clock_signed_going_back_is_named_for_its_author() -> None:
    records = chain()
    records[1]["vc"], records[2]["vc"] = records[2]["vc"], records[1]["vc"]
    assert bad(records).seq == 2  # stored clocks swapped: the content changed
    resigned = chain()[:3]
    third = seal(KEY, run_id=RUN, seq=4, type="vote", persona="phil", data={}, vc={"phil": 1, "council": 1},
                 prev=resigned[2]["fingerprint"])  # fmt: skip
    found = bad([*resigned, third.to_json()])
    assert found == BadRecord(4, "vote", "phil", "clock goes back for ada (1 before, 0 here)")
    still = seal(KEY, run_id=RUN, seq=4, type="vote", persona="lea", data={}, vc=resigned[2]["vc"],
                 prev=resigned[2]["fingerprint"])  # fmt: skip
    assert bad([*resigned, still.to_json()]).reason.startswith("clock does not move on for lea")


def test_a_record_signed_by_another_key_is_named() -> None:
    records = chain()
    forged = seal(OTHER, run_id=RUN, seq=3, type="review", persona="lea", data={"text": "LGTM"},
                  vc=records[2]["vc"], prev=records[1]["fingerprint"])  # fmt: skip
    records[2] = forged.to_json()
    found = bad(records)
    assert (found.seq, found.type, found.persona) == (3, "review", "lea")
    assert found.reason.startswith("signed by another key")
    assert bad(chain(OTHER)).reason.startswith("signed by another key")


def test_a_signature_changed_but_claiming_the_right_key_does_not_verify() -> None:
    records = chain()
    signature = records[3]["signature"]
    records[3]["signature"] = ("0" if signature[0] != "0" else "1") + signature[1:]
    found = bad(records)
    assert found.seq == 4 and found.reason.startswith("signature does not verify")


def test_records_moved_or_removed_break_the_chain_where_they_were() -> None:
    records = chain()
    swapped = [records[0], records[2], records[1], *records[3:]]
    assert bad(swapped) == BadRecord(3, "review", "lea", bad(swapped).reason)
    assert "record 2 belongs here" in bad(swapped).reason
    assert bad([records[0], *records[2:]]).seq == 3
    assert bad(records[1:]) == BadRecord(2, "review", "ada", bad(records[1:]).reason)
    inserted = seal(KEY, run_id=RUN, seq=3, type="review", persona="david", data={},
                    vc=tick(records[2]["vc"], "david"), prev=records[2]["fingerprint"])  # fmt: skip
    spliced = [*records[:2], inserted.to_json(), *records[3:]]
    assert bad(spliced).seq == 3 and bad(spliced).reason.startswith("does not follow the record before it")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r.pop("signature"), "malformed: no 'signature' field"),
        (lambda r: r.update(signature="zz" * 64), "malformed: 'signature' is not 128 lower-case hex digits"),
        (lambda r: r.update(fingerprint=None), "malformed: 'fingerprint' is not 96 lower-case hex digits"),
        (lambda r: r.update(seq="2"), "malformed: 'seq' is not a whole number from 1"),
        (lambda r: r.update(vc={"lea": -1}), "malformed: 'vc' is not a JSON object of whole numbers"),
        (lambda r: r.update(data=[1]), "malformed: 'data' is not a JSON object"),
        (lambda r: r.update(extra=1), "malformed: an unknown field 'extra'"),
        (lambda r: r["data"].update(x=math.inf), "malformed: holds a number or text JSON cannot carry"),
        (lambda r: r["data"].update(x="\ud800"), "malformed: holds a number or text JSON cannot carry"),
    ],
)
def test_a_malformed_record_is_named_never_raised(change: Any, reason: str) -> None:
    records = chain()
    change(records[1])
    found = bad(records)
    assert found == BadRecord(2, "review", "ada", found.reason) and found.reason.startswith(reason)
    assert verify_records(records, KEY.public_key(), RUN).verified == 1


def test_what_is_not_a_record_at_all_is_named_by_its_place() -> None:
    result = verify_records([chain()[0], "junk"], KEY.public_key(), RUN)  # type: ignore[list-item]
    assert result.first_bad == BadRecord(2, None, None, "malformed: not a JSON object")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(place=st.integers(0, 4), field=st.sampled_from(records_module.FIELDS), value=JSON)
def test_any_value_in_any_field_is_a_verdict_never_an_exception(place: int, field: str, value: Any) -> None:
    records = chain()
    unchanged = copy.deepcopy(records[place][field])
    records[place][field] = value
    result = verify_records(records, KEY.public_key(), RUN)
    same = json.dumps(value, sort_keys=True) == json.dumps(unchanged, sort_keys=True)
    assert result.ok == same
    assert same or (result.first_bad is not None and result.verified == place)


def test_a_record_never_verifies_as_an_approval_nor_an_approval_as_a_record() -> None:
    """Even signed by one key, a record's signature means nothing as an envelope's, and the other way round."""
    assert not DOMAIN.startswith(envelopes.DOMAIN) and not envelopes.DOMAIN.startswith(DOMAIN)
    record = Recorder(RUN, KEY).append("verdict", None, {"decision": "allow"})
    body = canonical(RUN, Record(**record.to_json()))
    with pytest.raises(InvalidSignature):
        KEY.public_key().verify(bytes.fromhex(record.signature), envelopes.DOMAIN + body)
    envelope = envelopes.sign(KEY, request_id="r1", tool="shell", args={"command": "ls"}, decision="allow", now=1.0)
    posing = envelopes.Envelope(
        **{**envelope.to_json(), "signature": base64.b64encode(bytes.fromhex(record.signature)).decode()}
    )
    refused = envelopes.verify(posing, request_id="r1", tool="shell", args={"command": "ls"},
                               public_key=KEY.public_key(), consume_nonce=lambda _n: True, now=2.0)  # fmt: skip
    assert isinstance(refused, envelopes.Refusal) and refused.kind == "forged"

    signature = base64.b64decode(envelope.signature)
    with pytest.raises(InvalidSignature):
        KEY.public_key().verify(signature, DOMAIN + envelope.signed_bytes().removeprefix(envelopes.DOMAIN))
    as_record = {**record.to_json(), "signature": signature.hex()}
    found = verify_records([as_record], KEY.public_key(), RUN).first_bad
    assert found is not None and found.reason.startswith("signature does not verify")


def test_seal_refuses_data_that_would_not_read_back_the_same_and_a_persona_named_council() -> None:
    recorder = Recorder(RUN, KEY)
    with pytest.raises(ValueError, match="plain JSON"):
        recorder.append("review", "ada", {"when": object()})
    with pytest.raises(ValueError, match="plain JSON"):
        recorder.append("review", "ada", {"score": math.nan})
    with pytest.raises(ValueError, match="persona=None"):
        recorder.append("verdict", "council", {})
    assert recorder.head is None
    assert recorder.append("review", "ada", {"pair": (1, 2)}).data == {"pair": [1, 2]}  # as it reads back


def test_clocks_merge_and_tick() -> None:
    assert tick({"ada": 2, "lea": 1}, "lea", {"ada": 3, "phil": 1}) == {"ada": 3, "lea": 2, "phil": 1}
    assert goes_back({"ada": 1}, {"ada": 1, "lea": 1}, "lea") is None
    assert goes_back({"ada": 1}, {"lea": 1}, "lea") == "clock goes back for ada (1 before, 0 here)"


# -- stored in the runtime database -------------------------------------------------------------------


@pytest.fixture
def runs() -> Iterator[RunStore]:
    with RunStore(open_engine(database_url(load_settings({})))) as store:
        yield store


def _council(runs: RunStore, run_id: str = RUN) -> list[Record]:
    runs.add(run_id, "council: parse() and tabs", "normal", {"kind": "council"})
    recorder = Recorder.for_run(runs, run_id, KEY)
    return [recorder.append(kind, persona, data) for kind, persona, data in SPEAKERS]


def _set_event(runs: RunStore, key: str, text: str) -> None:
    from sqlalchemy import text as sql

    with runs.engine.begin() as conn:
        conn.execute(
            sql("UPDATE run_events SET event = :e WHERE run_id = :r AND key = :k"), {"e": text, "r": RUN, "k": key}
        )


def test_records_are_run_events_and_a_resumed_recorder_goes_on_from_the_last(runs: RunStore) -> None:
    made = _council(runs)
    events = runs.events(RUN)
    assert [e["record"]["seq"] for _, e in events] == [1, 2, 3, 4, 5]
    assert all(e["type"] == "council_record" for _, e in events)
    resumed = Recorder.for_run(runs, RUN, KEY)
    assert resumed.head == made[-1]
    nxt = resumed.append("note", None, {})
    assert (nxt.seq, nxt.prev, nxt.vc["council"]) == (6, made[-1].fingerprint, 3)
    assert verify_run(runs, RUN, KEY.public_key()).to_json() == {
        "run_id": RUN, "ok": True, "verified": 6, "first_bad": None,
    }  # fmt: skip
    rival = Recorder(RUN, KEY, store=runs, after=resumed.head)
    rival.append("note", "ada", {})
    with pytest.raises(ChrysalisError, match="already has a council record 7"):
        resumed.append("note", None, {})
    assert resumed.head == nxt  # the refused record is not the head


@pytest.mark.parametrize(
    ("stored", "reason"),
    [
        ('{"type": "council_record", "record": {"seq": 3, ', "its stored event is not JSON"),
        ('{"type": "council_record"}', "its stored event has no record object"),
    ],
)
def test_a_damaged_row_is_a_named_bad_record(runs: RunStore, stored: str, reason: str) -> None:
    _council(runs)
    _set_event(runs, "record-3", stored)
    result = verify_run(runs, RUN, KEY.public_key())
    first_bad = {"seq": 3, "type": None, "persona": None, "reason": reason}
    assert result.to_json() == {"run_id": RUN, "ok": False, "verified": 2, "first_bad": first_bad}
    _set_event(runs, "record-5", "{")
    with pytest.raises(ChrysalisError, match="provenance verify"):
        Recorder.for_run(runs, RUN, KEY)


def test_a_missing_field_or_a_non_hex_signature_in_the_database_is_named(runs: RunStore) -> None:
    made = _council(runs)
    event = made[3].to_event()
    event["record"]["signature"] = "not hex"
    _set_event(runs, "record-4", json.dumps(event))
    found = verify_run(runs, RUN, KEY.public_key()).first_bad
    assert found == BadRecord(4, "vote", "phil", "malformed: 'signature' is not 128 lower-case hex digits")
    second = made[1].to_event()
    del second["record"]["vc"]
    _set_event(runs, "record-2", json.dumps(second))
    assert verify_run(runs, RUN, KEY.public_key()).first_bad == BadRecord(
        2, "review", "ada", "malformed: no 'vc' field"
    )


def test_an_unknown_run_is_a_usage_error(runs: RunStore) -> None:
    with pytest.raises(UsageError, match="No run 'nope'"):
        verify_run(runs, "nope", KEY.public_key())
