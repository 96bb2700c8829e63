"""Approval envelopes: a person's signed yes (or no) to one exact action, usable once, for a while.

An envelope binds a decision to the SHA-256 of the action's canonical JSON (tool and arguments),
to the approval request's id, to a random nonce and to an expiry, and is signed with the user's
Ed25519 key (``keys.py``). The worker about to run the action checks, in this order, and refuses
with the first reason that applies (each refusal is logged by the caller; the action does not run):

    malformed      a field is missing or of the wrong type, or the decision is neither allow nor deny
    wrong_key      signed by another key than the one this worker trusts
    forged         the signature does not verify: made without the key, or edited after signing
    wrong_request  a valid envelope, but for another approval request
    altered        a valid envelope, but the action about to run is not the one approved (its tool
                   or arguments changed after the approval)
    expired        past its expiry
    replayed       its nonce was used before (the caller's ``consume_nonce`` records nonces in the
                   database, atomically, so two workers cannot both use one envelope)

The nonce is consumed last, so an envelope refused for another reason does not burn it. The
signed bytes are a domain tag and the canonical JSON of every field but the signature, so an
envelope can never be mistaken for another kind of signed message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from chrysalis.runtime.keys import fingerprint

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = ["DEFAULT_TTL", "Decision", "Envelope", "Refusal", "action_hash", "sign", "verify"]

DOMAIN = b"chrysalis-approval-v1\n"
DEFAULT_TTL = 15 * 60.0
"""Seconds an approval stays usable: long enough to reach a waiting worker, short enough that an old one is dead."""
Decision = Literal["allow", "deny"]
RefusalKind = Literal["malformed", "wrong_key", "forged", "wrong_request", "altered", "expired", "replayed"]


def action_hash(tool: str, args: Mapping[str, Any]) -> str:
    """The SHA-256 of the action's canonical JSON: what an approval is bound to."""
    canonical = json.dumps({"tool": tool, "args": args}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Envelope:
    """A signed decision on one approval request."""

    request_id: str
    action: str
    """``action_hash`` of the tool and arguments approved."""
    decision: Decision
    nonce: str
    issued_at: float
    expires_at: float
    key_id: str
    """The signing key's ``fingerprint``."""
    signature: str
    """Base64 of the Ed25519 signature over ``signed_bytes()``."""

    def signed_bytes(self) -> bytes:
        """What the signature covers: the domain tag and every other field, as canonical JSON."""
        fields = {k: v for k, v in asdict(self).items() if k != "signature"}
        return DOMAIN + json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()

    def to_json(self) -> dict[str, Any]:
        """The envelope as a JSON object (what ``chrysalis approve`` stores and a worker reads back)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Envelope | Refusal:
        """The envelope in ``data``, or a ``malformed`` refusal naming what is wrong."""
        number = (int, float)
        types: dict[str, type | tuple[type, ...]] = {
            "request_id": str,
            "action": str,
            "decision": str,
            "nonce": str,
            "issued_at": number,
            "expires_at": number,
            "key_id": str,
            "signature": str,
        }
        for name, kind in types.items():
            value = data.get(name)
            if value is None or isinstance(value, bool) or not isinstance(value, kind):
                return Refusal("malformed", f"the envelope's {name!r} is missing or not a {_kind_name(kind)}")
        if data["decision"] not in ("allow", "deny"):
            return Refusal("malformed", f"the envelope's decision {data['decision']!r} is neither 'allow' nor 'deny'")
        return cls(**{name: data[name] for name in types})


@dataclass(frozen=True)
class Refusal:
    """Why an envelope was refused: the kind (for logs and tests) and a sentence (for people)."""

    kind: RefusalKind
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def sign(
    key: Ed25519PrivateKey,
    *,
    request_id: str,
    tool: str,
    args: Mapping[str, Any],
    decision: Decision,
    ttl: float = DEFAULT_TTL,
    now: float | None = None,
) -> Envelope:
    """An envelope with ``decision`` on the request to run ``tool`` with ``args``, usable for ``ttl`` seconds."""
    issued = time.time() if now is None else now
    unsigned = Envelope(
        request_id,
        action_hash(tool, args),
        decision,
        secrets.token_hex(16),
        issued,
        issued + ttl,
        fingerprint(key.public_key()),
        "",
    )
    signature = base64.b64encode(key.sign(unsigned.signed_bytes())).decode()
    return Envelope(**{**asdict(unsigned), "signature": signature})


def verify(
    envelope: Envelope | Mapping[str, Any],
    *,
    request_id: str,
    tool: str,
    args: Mapping[str, Any],
    public_key: Ed25519PublicKey,
    consume_nonce: Callable[[str], bool],
    now: float | None = None,
) -> Envelope | Refusal:
    """The envelope, if it approves or denies exactly this action now; else why not (see the module's table).

    ``consume_nonce(nonce)`` records the nonce as used and says whether it was unused until then;
    it is called only when every other check passed.
    """
    from cryptography.exceptions import InvalidSignature

    parsed = envelope if isinstance(envelope, Envelope) else Envelope.from_json(envelope)
    if isinstance(parsed, Refusal):
        return parsed
    trusted = fingerprint(public_key)
    if parsed.key_id != trusted:
        return Refusal("wrong_key", f"signed by key {parsed.key_id}, but this worker trusts key {trusted}")
    try:
        public_key.verify(base64.b64decode(parsed.signature, validate=True), parsed.signed_bytes())
    except (InvalidSignature, ValueError):
        return Refusal(
            "forged",
            "the signature does not verify: the envelope was not signed with the key, or was changed after signing",
        )
    if parsed.request_id != request_id:
        return Refusal("wrong_request", f"the envelope is for request {parsed.request_id}, not {request_id}")
    if parsed.action != action_hash(tool, args):
        return Refusal(
            "altered",
            f"the envelope approves another action than {tool} with these arguments (they changed after the approval)",
        )
    moment = time.time() if now is None else now
    if moment >= parsed.expires_at:
        return Refusal("expired", f"the envelope expired {moment - parsed.expires_at:.0f} s ago; approve it again")
    if not consume_nonce(parsed.nonce):
        return Refusal("replayed", f"the envelope's nonce {parsed.nonce} was used before")
    return parsed


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return "number" if isinstance(kind, tuple) else "string"
