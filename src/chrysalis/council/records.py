"""The council's records: what each persona and the council said, in order, fingerprinted and signed.

A council is a durable run (``runtime/runs.py``), and each thing it says (the topic, a persona's
review, a vote, the verdict) is a ``Record`` stored as one of the run's events::

    key   "record-<seq>"
    event {"type": "council_record", "record": {seq, type, persona, data, vc, prev, key, fingerprint, signature}}

    seq          1, 2, 3 ... in the order the records were made
    type         what the record is ("topic", "review", "vote", "verdict": the council's words, not ours)
    persona      who said it; null for the council itself
    data         what was said: any JSON object
    vc           the vector clock, ``{author: count}`` (``clocks.py``; the author is the persona or "council")
    prev         the previous record's fingerprint (null for the first): a removed or moved record breaks the chain
    key          the signing key's fingerprint (``runtime.keys.fingerprint``): which key signed it
    fingerprint  SHA-384 (96 hex digits) of the canonical JSON below
    signature    Ed25519 (128 hex digits) over ``DOMAIN`` + the canonical JSON, with the records key

The canonical JSON is the record's fields but the fingerprint and signature, plus the run's id
(``run_id``), with sorted keys and no spaces. The run id is in it, so a record copied into another
run does not verify there; it is not stored in the record, because the run it sits in says it.
The record sits under ``"record"`` rather than at the event's top level so that its ``type``
cannot be mistaken for the event's (``chrysalis show`` prints events by their type).

The records key is a pair of its own (``runtime.keys.RECORDS``, made at first use by
``records_key``), never the approval pair, and its domain tag differs from the approvals' (``DOMAIN``
here, ``envelopes.DOMAIN`` there): a record can never pass as an approval, nor an approval as a record.

To write a council's records, the caller (``chrysalis council``) does::

    recorder = Recorder.for_run(runs, run_id, records_key(home))   # continues a chain already stored
    recorder.append("review", "lea", {"text": "..."})              # sealed and written as record-<seq>

or, to write them itself, ``Recorder(run_id, key)`` and ``runs.add_event(run_id, r.event_key, r.to_event())``.
``council/provenance.py`` checks them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.council.clocks import COUNCIL, author_of, tick
from chrysalis.errors import ChrysalisError
from chrysalis.runtime.keys import fingerprint

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from chrysalis.runtime.runs import RunStore

__all__ = [
    "DOMAIN",
    "EVENT_KEY_PREFIX",
    "EVENT_TYPE",
    "FIELDS",
    "Record",
    "Recorder",
    "Unreadable",
    "canonical",
    "record_fingerprint",
    "seal",
    "stored_records",
]

DOMAIN = b"chrysalis-council-record-v1\n"
"""Signed before the canonical JSON, so a record's signature can mean nothing else (an approval has its own)."""
EVENT_TYPE = "council_record"
EVENT_KEY_PREFIX = "record-"
FIELDS = ("seq", "type", "persona", "data", "vc", "prev", "key", "fingerprint", "signature")
"""A stored record's fields, all required, no others."""
_HEX = {"prev": 96, "key": 16, "fingerprint": 96, "signature": 128}
"""The fields that are hex digits (lower case, as written), with how many."""


@dataclass(frozen=True, kw_only=True)
class Record:
    """One sealed record of a council (the module's docstring lists the fields)."""

    seq: int
    type: str
    persona: str | None
    data: dict[str, Any]
    vc: dict[str, int]
    prev: str | None
    key: str
    fingerprint: str
    signature: str

    @property
    def author(self) -> str:
        """Whose clock counter the record moves: the persona, or "council"."""
        return author_of(self.persona)

    @property
    def event_key(self) -> str:
        """The run event's key: ``record-<seq>`` (one record per place, even when a resumed run writes again)."""
        return f"{EVENT_KEY_PREFIX}{self.seq}"

    def to_json(self) -> dict[str, Any]:
        """The record as stored, every field (a copy: changing it leaves the record as sealed)."""
        return copy.deepcopy({name: getattr(self, name) for name in FIELDS})

    def to_event(self) -> dict[str, Any]:
        """The run event that stores it: ``{"type": "council_record", "record": ...}``."""
        return {"type": EVENT_TYPE, "record": self.to_json()}

    @classmethod
    def from_json(cls, value: object) -> Record | str:
        """The record in ``value`` as stored, or why it is not one (a short phrase; nothing is checked but the form)."""
        if not isinstance(value, Mapping):
            return "not a JSON object"
        missing = [name for name in FIELDS if name not in value]
        if missing:
            return f"no {missing[0]!r} field"
        extra = sorted(str(name) for name in value if name not in FIELDS)
        if extra:
            return f"an unknown field {extra[0]!r}"
        problem = _form_problem(value)
        if problem:
            return problem
        try:
            json.dumps(dict(value), allow_nan=False, ensure_ascii=False).encode()
        except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
            return "holds a number or text JSON cannot carry (NaN, infinity, a lone surrogate), or is nested too deep"
        return cls(**{name: value[name] for name in FIELDS})


def _form_problem(value: Mapping[str, Any]) -> str | None:
    """What is wrong with the form of the fields of ``value``, which has all of them; None when nothing."""
    seq = value["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return "'seq' is not a whole number from 1"
    if not isinstance(value["type"], str) or not value["type"]:
        return "'type' is not a non-empty string"
    if value["persona"] is not None and (not isinstance(value["persona"], str) or not value["persona"]):
        return "'persona' is neither null nor a non-empty string"
    if not isinstance(value["data"], dict):
        return "'data' is not a JSON object"
    vc = value["vc"]
    if not isinstance(vc, dict) or not all(
        isinstance(count, int) and not isinstance(count, bool) and count >= 0 for count in vc.values()
    ):
        return "'vc' is not a JSON object of whole numbers"
    for name, digits in _HEX.items():
        field = value[name]
        if not (name == "prev" and field is None) and not _is_hex(field, digits):
            return f"{name!r} is not {digits} lower-case hex digits"
    return None


def _is_hex(value: object, digits: int) -> bool:
    return isinstance(value, str) and re.fullmatch(f"[0-9a-f]{{{digits}}}", value) is not None


def canonical(run_id: str, record: Record) -> bytes:
    """What the fingerprint hashes and the signature covers (after ``DOMAIN``): the signed fields and the run id."""
    fields = {name: getattr(record, name) for name in FIELDS if name not in ("fingerprint", "signature")}
    text = json.dumps(
        {**fields, "run_id": run_id}, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode()


def record_fingerprint(run_id: str, record: Record) -> str:
    """The SHA-384 of the record's canonical JSON, as 96 hex digits."""
    return hashlib.sha384(canonical(run_id, record)).hexdigest()


def seal(
    key: Ed25519PrivateKey,
    *,
    run_id: str,
    seq: int,
    type: str,
    persona: str | None,
    data: Mapping[str, Any],
    vc: Mapping[str, int],
    prev: str | None,
) -> Record:
    """A record with these fields, fingerprinted and signed with ``key``; ``Recorder.append`` fills them in.

    Raises:
        ValueError: ``data`` is not plain JSON (an object of strings, numbers, booleans, null, lists
            and objects; no NaN), or ``type`` or ``persona`` is empty.
    """
    if not type:
        raise ValueError("A council record needs a type, e.g. 'review' or 'verdict'.")
    if persona is not None and not persona:
        raise ValueError("A council record's persona is a name, or None for the council's own records.")
    unsigned = Record(
        seq=seq,
        type=type,
        persona=persona,
        data=_plain(data),
        vc=dict(sorted(vc.items())),
        prev=prev,
        key=fingerprint(key.public_key()),
        fingerprint="",
        signature="",
    )
    body = canonical(run_id, unsigned)
    return Record(
        **{
            **unsigned.to_json(),
            "fingerprint": hashlib.sha384(body).hexdigest(),
            "signature": key.sign(DOMAIN + body).hex(),
        }
    )


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as it reads back from the database (tuples become lists), so what is signed is what is stored."""
    try:
        text = json.dumps(dict(data), allow_nan=False, ensure_ascii=False)
        text.encode()  # a lone surrogate fails here, when the record is sealed, not when it is checked
        plain = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(
            f"A council record's data must be plain JSON (no NaN, no objects of other kinds): {exc}"
        ) from exc
    result: dict[str, Any] = plain
    return result


class Recorder:
    """Seals one run's records in order: each with its place, its clock and the fingerprint of the one before.

    One recorder per run at a time: two writing one run would fork its chain (the second to write
    a place is refused, since a run has one event per key).
    """

    def __init__(
        self, run_id: str, key: Ed25519PrivateKey, *, store: RunStore | None = None, after: Record | None = None
    ) -> None:
        """Records for ``run_id`` signed with ``key`` (``runtime.keys.records_key``).

        Args:
            run_id: The council's run.
            key: The records private key.
            store: Where ``append`` writes each record (``RunStore.add_event``); None: the caller writes them.
            after: The last record already made, to go on from (None: the first record is seq 1).
        """
        self.run_id = run_id
        self._key = key
        self._store = store
        self.head = after
        """The last record made, or None before the first."""

    @classmethod
    def for_run(cls, store: RunStore, run_id: str, key: Ed25519PrivateKey) -> Recorder:
        """A recorder that writes into ``run_id``'s events, after the records already there (a resumed council).

        It trusts the stored chain as it is: run ``provenance.verify_run`` first where the database
        may have been changed.

        Raises:
            UsageError: there is no run ``run_id``.
            ChrysalisError: the last stored record cannot be read, so there is no chain to go on from.
        """
        store.get(run_id)
        stored = stored_records(store, run_id)
        if not stored:
            return cls(run_id, key, store=store)
        last = stored[-1]
        parsed = Record.from_json(last) if not isinstance(last, Unreadable) else last.reason
        if isinstance(parsed, str):
            raise ChrysalisError(
                f"The last council record of run {run_id} cannot be read ({parsed}), so no record can follow it: "
                f"`chrysalis provenance verify {run_id}` names the damaged record."
            )
        return cls(run_id, key, store=store, after=parsed)

    def append(self, type: str, persona: str | None, data: Mapping[str, Any]) -> Record:
        """Seal the next record (and write it when the recorder has a store); the new head.

        Its clock is the previous one with the author's counter one up (the author: ``persona``,
        or "council" when None).

        Raises:
            ValueError: ``data`` is not plain JSON, ``type`` is empty, or ``persona`` is empty or "council".
            ChrysalisError: the store has a record at this place already (another recorder wrote to the run).
        """
        if persona == COUNCIL:
            raise ValueError(f"{COUNCIL!r} names the council's own records: pass persona=None for them.")
        head = self.head
        record = seal(
            self._key,
            run_id=self.run_id,
            seq=1 if head is None else head.seq + 1,
            type=type,
            persona=persona,
            data=data,
            vc=tick({} if head is None else head.vc, author_of(persona)),
            prev=None if head is None else head.fingerprint,
        )
        if self._store is not None and not self._store.add_event(self.run_id, record.event_key, record.to_event()):
            raise ChrysalisError(
                f"Run {self.run_id} already has a council record {record.seq}: another recorder is writing to it."
            )
        self.head = record
        return record


@dataclass(frozen=True)
class Unreadable:
    """A stored record event that is not even JSON with a record in it: where it is, and why."""

    seq: int
    """The place its event key names (``record-<seq>``), else its place among the run's records."""
    reason: str


def stored_records(store: RunStore, run_id: str) -> list[dict[str, Any] | Unreadable]:
    """The run's record events in the order they were written: each its ``record`` object, or ``Unreadable``.

    Never raises on a damaged row: a row that is not JSON, or has no ``record`` object, is an
    ``Unreadable`` naming it, so ``provenance verify`` can say which record is bad.
    """
    found: list[dict[str, Any] | Unreadable] = []
    for place, (_position, key, text) in enumerate(store.event_texts(run_id, key_prefix=EVENT_KEY_PREFIX), 1):
        suffix = key.removeprefix(EVENT_KEY_PREFIX)
        seq = int(suffix) if suffix.isascii() and suffix.isdigit() else place
        try:
            event = json.loads(text)
        except (ValueError, RecursionError):
            found.append(Unreadable(seq, "its stored event is not JSON"))
            continue
        record = event.get("record") if isinstance(event, dict) else None
        found.append(record if isinstance(record, dict) else Unreadable(seq, "its stored event has no record object"))
    return found
