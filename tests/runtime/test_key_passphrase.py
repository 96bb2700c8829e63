"""The approval key at rest: encrypted with a passphrase, unlocked from CHRYSALIS_KEY_PASSPHRASE or a terminal.

An encrypted key signs envelopes the public key verifies, as an unencrypted one does; without the
passphrase, with a wrong one, or when the file cannot be read, loading stops with a message that
names the file and the fix. An unencrypted key loads as before, and nobody is asked anything for it.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from chrysalis.cli.passphrase import PassphraseSource
from chrysalis.errors import ConfigError, UsageError
from chrysalis.runtime.envelopes import Envelope, sign, verify
from chrysalis.runtime.keys import PRIVATE_NAME, PUBLIC_NAME, init_keys, is_encrypted, load_private, load_public

SECRET = "correct horse battery staple"
ARGS = {"command": "make deploy"}


def given_(value: str | None) -> Callable[[Path], str | None]:
    return lambda _path: value


class Terminal:
    """A person at a terminal: answers each hidden question in turn, and remembers the prompts."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


def test_an_encrypted_key_signs_what_the_public_key_verifies(tmp_path: Path) -> None:
    made = init_keys(tmp_path, SECRET)
    private = tmp_path / "keys" / PRIVATE_NAME
    assert made.created and made.encrypted and is_encrypted(tmp_path)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert SECRET.encode() not in private.read_bytes()
    envelope = sign(load_private(tmp_path, given_(SECRET)), request_id="r1", tool="shell", args=ARGS, decision="allow")
    verdict = verify(
        envelope,
        request_id="r1",
        tool="shell",
        args=ARGS,
        public_key=load_public(tmp_path),
        consume_nonce=lambda _: True,
    )
    assert isinstance(verdict, Envelope) and verdict.decision == "allow"
    kept = init_keys(tmp_path)  # kept as it is, and reported encrypted
    assert not kept.created and kept.encrypted and kept.fingerprint == made.fingerprint


def test_a_wrong_or_missing_passphrase_names_the_file_and_the_fix(tmp_path: Path) -> None:
    init_keys(tmp_path, SECRET)
    private = tmp_path / "keys" / PRIVATE_NAME
    with pytest.raises(UsageError) as wrong:
        load_private(tmp_path, given_("not it"))
    assert str(wrong.value).startswith(f"Wrong passphrase for the approval key {private}")
    assert "CHRYSALIS_KEY_PASSPHRASE" in str(wrong.value)
    for nothing in (None, given_(None), given_("")):
        with pytest.raises(UsageError) as missing:
            load_private(tmp_path, nothing)
        assert str(missing.value) == (
            f"The approval key {private} is encrypted and no passphrase was given: set CHRYSALIS_KEY_PASSPHRASE "
            "or run in a terminal to be asked for it."
        )


def test_an_unencrypted_key_loads_as_before_and_nobody_is_asked(tmp_path: Path) -> None:
    made = init_keys(tmp_path)
    assert not made.encrypted and not is_encrypted(tmp_path)

    def never(_path: Path) -> str:
        raise AssertionError("asked for a passphrase of an unencrypted key")

    assert load_private(tmp_path, never).public_key().public_bytes_raw() == load_public(tmp_path).public_bytes_raw()
    assert load_private(tmp_path).public_key().public_bytes_raw() == load_public(tmp_path).public_bytes_raw()


def test_an_unreadable_key_is_a_usage_error_that_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_keys(tmp_path, SECRET)
    private = tmp_path / "keys" / PRIVATE_NAME
    read_bytes = Path.read_bytes

    def denied(path: Path) -> bytes:  # as root (CI containers) chmod 000 would not stop a read
        if path == private:
            raise PermissionError(13, "Permission denied")
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(ConfigError, match=f"Cannot read the approval key {private} \\(Permission denied\\)"):
        load_private(tmp_path, given_(SECRET))


def test_a_lost_public_half_comes_back_once_the_key_is_unlocked(tmp_path: Path) -> None:
    made = init_keys(tmp_path, SECRET)
    (tmp_path / "keys" / PUBLIC_NAME).unlink()
    with pytest.raises(UsageError, match="is encrypted and no passphrase was given"):
        init_keys(tmp_path)
    assert not (tmp_path / "keys" / PUBLIC_NAME).exists()
    assert init_keys(tmp_path, unlock=given_(SECRET)).fingerprint == made.fingerprint


def test_the_variable_comes_first_then_one_hidden_question_on_a_terminal(tmp_path: Path) -> None:
    key = tmp_path / "k"
    from_env = PassphraseSource({"CHRYSALIS_KEY_PASSPHRASE": SECRET}, lambda: True, Terminal())
    assert from_env.unlock()(key) == SECRET
    person = Terminal(SECRET)
    assert PassphraseSource({}, lambda: True, person).unlock()(key) == SECRET
    assert person.prompts == [f"Passphrase for the approval key {key}: "]
    assert PassphraseSource({}, lambda: False, Terminal()).unlock()(key) is None  # no terminal: nobody to ask
    assert PassphraseSource({"CHRYSALIS_KEY_PASSPHRASE": ""}, lambda: False, Terminal()).unlock()(key) is None


def test_a_new_passphrase_is_asked_twice_and_must_match() -> None:
    person = Terminal(SECRET, SECRET)
    assert PassphraseSource({}, lambda: True, person).new_passphrase(wanted=True) == SECRET
    assert len(person.prompts) == 2
    with pytest.raises(UsageError, match="The two passphrases differ"):
        PassphraseSource({}, lambda: True, Terminal(SECRET, "typo")).new_passphrase(wanted=True)
    with pytest.raises(UsageError, match="The passphrase is empty: type one, or leave out --passphrase"):
        PassphraseSource({}, lambda: True, Terminal("", "")).new_passphrase(wanted=True)
    with pytest.raises(UsageError, match="set CHRYSALIS_KEY_PASSPHRASE or run `chrysalis keys init --passphrase`"):
        PassphraseSource({}, lambda: False, Terminal()).new_passphrase(wanted=True)


def test_without_the_flag_only_the_variable_encrypts_a_new_key() -> None:
    env = {"CHRYSALIS_KEY_PASSPHRASE": SECRET}
    assert PassphraseSource(env, lambda: True, Terminal()).new_passphrase(wanted=False) == SECRET
    assert PassphraseSource(env, lambda: True, Terminal()).new_passphrase(wanted=True) == SECRET  # never asked
    assert PassphraseSource({}, lambda: True, Terminal()).new_passphrase(wanted=False) is None
