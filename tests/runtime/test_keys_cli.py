"""``chrysalis keys init``: made once, mode 600, never overwritten, and the same in JSON."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.helpers import assert_clean_error, chrysalis


def test_keys_init_makes_the_pair_once_and_keeps_it(tmp_path: Path) -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    first = chrysalis("keys", "init", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "Made the approval key pair" in first.stdout and "mode 600" in first.stdout
    private = home / "keys" / "approval_ed25519"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    before = private.read_bytes()
    again = chrysalis("keys", "init", "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["created"] is False and report["private_key"] == str(private) and len(report["fingerprint"]) == 16
    assert private.read_bytes() == before


def test_passphrase_with_neither_variable_nor_terminal_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    refused = chrysalis("keys", "init", "--passphrase", cwd=tmp_path)
    assert_clean_error(refused, 2, "set CHRYSALIS_KEY_PASSPHRASE or run `chrysalis keys init --passphrase`")
    assert not (home / "keys" / "approval_ed25519").exists()


def test_the_variable_encrypts_a_new_key_and_passphrase_cannot_rewrite_a_plain_one(tmp_path: Path) -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    private = home / "keys" / "approval_ed25519"
    made = chrysalis("keys", "init", "--json", cwd=tmp_path, env={"CHRYSALIS_KEY_PASSPHRASE": "s3cret words"})
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["encrypted"] is True and stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    kept = chrysalis("keys", "init", cwd=tmp_path)  # a kept encrypted key needs no passphrase to be reported
    assert kept.returncode == 0 and "The private key is encrypted" in kept.stdout, kept.stderr
    private.unlink()
    (home / "keys" / "approval_ed25519.pub").unlink()
    assert chrysalis("keys", "init", cwd=tmp_path).returncode == 0  # no flag, no variable: unencrypted, as before
    before = private.read_bytes()
    refused = chrysalis("keys", "init", "--passphrase", cwd=tmp_path, env={"CHRYSALIS_KEY_PASSPHRASE": "s3cret words"})
    assert_clean_error(refused, 2, f"The approval key {private} is already there, unencrypted", "never rewrites")
    assert private.read_bytes() == before
