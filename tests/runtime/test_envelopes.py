"""Signed approvals: the key pair on disk, and every way an envelope is refused (the action never runs)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chrysalis.errors import ConfigError, UsageError
from chrysalis.runtime.envelopes import Envelope, Refusal, action_hash, sign, verify
from chrysalis.runtime.keys import PRIVATE_NAME, PUBLIC_NAME, init_keys, load_private, load_public

TOOL = "shell"
ARGS = {"command": "rm -rf build", "timeout": 30}
NOW = 1_800_000_000.0


@pytest.fixture
def home(tmp_path: Path) -> Path:
    init_keys(tmp_path)
    return tmp_path


class Nonces:
    """What the database does: a nonce is accepted once."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, nonce: str) -> bool:
        fresh = nonce not in self.used
        self.used.add(nonce)
        return fresh


def check(
    home: Path,
    envelope: Envelope | dict[str, object],
    nonces: Nonces | None = None,
    *,
    now: float = NOW,
    args: dict[str, object] = ARGS,
    request_id: str = "req1",
) -> Envelope | Refusal:
    return verify(
        envelope,
        request_id=request_id,
        tool=TOOL,
        args=args,
        public_key=load_public(home),
        consume_nonce=nonces or Nonces(),
        now=now,
    )


def approval(home: Path) -> Envelope:
    return sign(load_private(home), request_id="req1", tool=TOOL, args=ARGS, decision="allow", ttl=60, now=NOW)


def test_keys_are_made_once_with_a_private_mode_and_never_overwritten(tmp_path: Path) -> None:
    made = init_keys(tmp_path)
    private = tmp_path / "keys" / PRIVATE_NAME
    assert made.created and made.private == private and stat.S_IMODE(private.stat().st_mode) == 0o600
    before = private.read_bytes()
    again = init_keys(tmp_path)
    assert not again.created and again.fingerprint == made.fingerprint and private.read_bytes() == before
    (tmp_path / "keys" / PUBLIC_NAME).unlink()  # the public half lost: it comes back from the private one
    assert init_keys(tmp_path).fingerprint == made.fingerprint


def test_a_private_key_others_can_read_a_broken_key_or_none_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="chrysalis keys init"):
        load_private(tmp_path)
    init_keys(tmp_path)
    (tmp_path / "keys" / PRIVATE_NAME).chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_private(tmp_path)
    (tmp_path / "keys" / PRIVATE_NAME).chmod(0o600)
    (tmp_path / "keys" / PUBLIC_NAME).write_text("not a key")
    with pytest.raises(ConfigError, match="is not an Ed25519 public key; move it away"):
        load_public(tmp_path)


def test_a_good_envelope_is_accepted_once(home: Path) -> None:
    envelope = approval(home)
    nonces = Nonces()
    assert check(home, envelope, nonces) == envelope
    replay = check(home, envelope, nonces)
    assert isinstance(replay, Refusal) and replay.kind == "replayed"


def test_a_refused_envelope_does_not_burn_its_nonce(home: Path) -> None:
    envelope, nonces = approval(home), Nonces()
    assert isinstance(check(home, envelope, nonces, now=NOW + 61), Refusal)  # expired
    assert nonces.used == set()


def test_forged_altered_expired_and_wrong_key_envelopes_are_refused_with_the_reason(
    home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    envelope = approval(home)
    data = envelope.to_json()
    # forged: the decision edited after signing (a deny turned into an allow is the same attack)
    forged = check(home, {**data, "decision": "deny"})
    assert isinstance(forged, Refusal) and forged.kind == "forged" and "signature does not verify" in forged.detail
    assert isinstance(r := check(home, {**data, "signature": "bm90IGEgc2lnbmF0dXJl"}), Refusal) and r.kind == "forged"
    # altered: a valid envelope, but the action about to run is not the one approved
    altered = check(home, envelope, args={**ARGS, "command": "rm -rf /"})
    assert isinstance(altered, Refusal) and altered.kind == "altered"
    # another request's approval
    other = check(home, envelope, request_id="req2")
    assert isinstance(other, Refusal) and other.kind == "wrong_request"
    expired = check(home, envelope, now=NOW + 61)
    assert isinstance(expired, Refusal) and expired.kind == "expired" and "approve it again" in expired.detail
    # signed by another key pair: refused whether it names its own key or claims this one's
    stranger = tmp_path_factory.mktemp("stranger")
    init_keys(stranger)
    theirs = sign(load_private(stranger), request_id="req1", tool=TOOL, args=ARGS, decision="allow", now=NOW)
    wrong_key = check(home, theirs)
    assert isinstance(wrong_key, Refusal) and wrong_key.kind == "wrong_key"
    posing = check(home, {**theirs.to_json(), "key_id": envelope.key_id})
    assert isinstance(posing, Refusal) and posing.kind == "forged"


def test_malformed_envelopes_name_the_field(home: Path) -> None:
    data = approval(home).to_json()
    missing = check(home, {k: v for k, v in data.items() if k != "nonce"})
    assert isinstance(missing, Refusal) and missing.kind == "malformed" and "'nonce'" in missing.detail
    bad = check(home, {**data, "decision": "maybe"})
    assert isinstance(bad, Refusal) and bad.kind == "malformed" and "'maybe'" in bad.detail
    assert isinstance(r := check(home, {**data, "expires_at": True}), Refusal) and r.kind == "malformed"


def test_the_action_hash_ignores_key_order_but_not_values() -> None:
    assert action_hash("shell", {"a": 1, "b": 2}) == action_hash("shell", {"b": 2, "a": 1})
    assert action_hash("shell", {"a": 1}) != action_hash("shell", {"a": 2}) != action_hash("write_file", {"a": 2})


@given(
    st.dictionaries(
        st.sampled_from(list(Envelope.__dataclass_fields__)),
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=40)),
    )
)
def test_any_json_object_is_an_envelope_or_a_refusal_never_a_crash(data: dict[str, object]) -> None:
    parsed = Envelope.from_json(data)
    assert isinstance(parsed, Envelope | Refusal)
