"""Checking a council's records (``records.py``): every one sealed by the records key, in order, unchanged.

``verify_records`` walks the chain from the first record and stops at the first bad one, checking
each, in this order, and naming it with the first reason that applies:

    well-formed    every field there, of its kind, and no other (a damaged row, a missing field,
                   a signature that is not hex)
    in its place   its seq is the next one, and its ``prev`` is the fingerprint of the record before
                   it: a record removed, moved or slipped in breaks the chain here
    unchanged      its fingerprint is the SHA-384 of its canonical JSON: a changed byte shows here
    signed         by the records key this home trusts, under the records' domain tag
    in time        its vector clock goes back for no author, and moves its own author's on

A chain cut short at its end is not seen (nothing after the last record says it was there): the
caller that must know a council finished checks for its last record, e.g. the verdict.
``verify_run`` reads a run's stored records (never failing on a damaged row) and checks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.council.clocks import goes_back
from chrysalis.council.records import DOMAIN, Record, Unreadable, canonical, record_fingerprint, stored_records
from chrysalis.runtime.keys import fingerprint

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from chrysalis.runtime.runs import RunStore

__all__ = ["BadRecord", "Verification", "verify_records", "verify_run"]


@dataclass(frozen=True)
class BadRecord:
    """The first record that failed, and why (a short phrase)."""

    seq: int
    """Its own seq when it has a readable one, else its place in the chain (from 1)."""
    type: str | None
    persona: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        """``{seq, type, persona, reason}``."""
        return {"seq": self.seq, "type": self.type, "persona": self.persona, "reason": self.reason}


@dataclass(frozen=True)
class Verification:
    """What a check of a run's records found: how many verified before the first bad one, if any."""

    run_id: str
    ok: bool
    verified: int
    """How many records verified (all of them when ``ok``; those before ``first_bad`` otherwise)."""
    first_bad: BadRecord | None

    def to_json(self) -> dict[str, Any]:
        """What ``chrysalis provenance verify --json`` prints: ``{run_id, ok, verified, first_bad}``."""
        bad = None if self.first_bad is None else self.first_bad.to_json()
        return {"run_id": self.run_id, "ok": self.ok, "verified": self.verified, "first_bad": bad}


def verify_records(records: Sequence[Mapping[str, Any]], public_key: Ed25519PublicKey, run_id: str) -> Verification:
    """Check ``records`` (as stored, in their stored order) as ``run_id``'s chain, signed by ``public_key``.

    Pure: nothing is read or written. The module's table gives the checks and their order.
    """
    trusted = fingerprint(public_key)
    before: Record | None = None
    for place, stored in enumerate(records, 1):
        checked = _check(stored, place, before, run_id, public_key, trusted)
        if isinstance(checked, BadRecord):
            return Verification(run_id, ok=False, verified=place - 1, first_bad=checked)
        before = checked
    return Verification(run_id, ok=True, verified=len(records), first_bad=None)


def verify_run(store: RunStore, run_id: str, public_key: Ed25519PublicKey) -> Verification:
    """Check the records stored in ``run_id``'s events (``verify_records``); a damaged row is a bad record.

    Raises:
        UsageError: there is no run ``run_id``.
    """
    store.get(run_id)
    stored = stored_records(store, run_id)
    damaged = next((place for place, record in enumerate(stored) if isinstance(record, Unreadable)), len(stored))
    result = verify_records([r for r in stored[:damaged] if not isinstance(r, Unreadable)], public_key, run_id)
    unreadable = stored[damaged] if damaged < len(stored) else None
    if not result.ok or not isinstance(unreadable, Unreadable):
        return result
    bad = BadRecord(unreadable.seq, None, None, unreadable.reason)
    return Verification(run_id, ok=False, verified=damaged, first_bad=bad)


def _check(
    stored: object,
    place: int,
    before: Record | None,
    run_id: str,
    public_key: Ed25519PublicKey,
    trusted: str,
) -> Record | BadRecord:
    """The record, if it passes every check after ``before``; else the first reason it fails."""
    record = Record.from_json(stored)
    if isinstance(record, str):
        return _named(stored, place, f"malformed: {record}")
    reason = (
        _out_of_place(record, before)
        or _changed(record, run_id)
        or _unsigned(record, run_id, public_key, trusted)
        or goes_back({} if before is None else before.vc, record.vc, record.author)
    )
    return record if reason is None else BadRecord(record.seq, record.type, record.persona, reason)


def _out_of_place(record: Record, before: Record | None) -> str | None:
    expected = 1 if before is None else before.seq + 1
    if record.seq != expected:
        return f"out of place: record {expected} belongs here (a record was removed, moved or added)"
    if before is None and record.prev is not None:
        return "the first record names a record before it (records before it were removed)"
    if before is not None and record.prev != before.fingerprint:
        return "does not follow the record before it (its prev is another record's fingerprint)"
    return None


def _changed(record: Record, run_id: str) -> str | None:
    if record.fingerprint != record_fingerprint(run_id, record):
        return "fingerprint does not match its content (changed after it was sealed, or from another run)"
    return None


def _unsigned(record: Record, run_id: str, public_key: Ed25519PublicKey, trusted: str) -> str | None:
    from cryptography.exceptions import InvalidSignature

    if record.key != trusted:
        return f"signed by another key ({record.key}, not this home's records key {trusted})"
    try:
        public_key.verify(bytes.fromhex(record.signature), DOMAIN + canonical(run_id, record))
    except InvalidSignature:
        return "signature does not verify under the records key (signed by another key, or changed after signing)"
    return None


def _named(stored: object, place: int, reason: str) -> BadRecord:
    """A bad record named as far as its fields allow: its seq if it has a whole one, else its place."""
    seq = stored.get("seq") if isinstance(stored, Mapping) else None
    kind = stored.get("type") if isinstance(stored, Mapping) else None
    persona = stored.get("persona") if isinstance(stored, Mapping) else None
    return BadRecord(
        seq if isinstance(seq, int) and not isinstance(seq, bool) else place,
        kind if isinstance(kind, str) else None,
        persona if isinstance(persona, str) else None,
        reason,
    )
