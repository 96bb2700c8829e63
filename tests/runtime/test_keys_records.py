"""The council records key pair: made unencrypted at first use, mode 600, kept, and never the approval pair."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from chrysalis.errors import ConfigError, UsageError
from chrysalis.runtime.keys import (
    RECORDS,
    fingerprint,
    init_keys,
    is_encrypted,
    keys_dir,
    load_private,
    load_public,
    records_key,
)
from tests.helpers import chrysalis


def test_the_records_key_is_made_at_first_use_unencrypted_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHRYSALIS_KEY_PASSPHRASE", "s3cret words")  # the approval key's; unattended councils ask none
    first = records_key(tmp_path)
    private = keys_dir(tmp_path) / RECORDS.private
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and not is_encrypted(tmp_path, role=RECORDS)
    assert fingerprint(records_key(tmp_path).public_key()) == fingerprint(first.public_key())
    assert fingerprint(load_public(tmp_path, role=RECORDS)) == fingerprint(first.public_key())
    assert sorted(p.name for p in keys_dir(tmp_path).iterdir()) == ["records_ed25519", "records_ed25519.pub"]


def test_the_records_pair_is_not_the_approval_pair_and_errors_name_it(tmp_path: Path) -> None:
    approval = init_keys(tmp_path)
    assert fingerprint(records_key(tmp_path).public_key()) != approval.fingerprint
    assert fingerprint(load_private(tmp_path).public_key()) == approval.fingerprint
    with pytest.raises(UsageError, match=r"No council records key at .*made by the first `chrysalis council`"):
        load_public(tmp_path / "elsewhere", role=RECORDS)
    (keys_dir(tmp_path) / RECORDS.private).chmod(0o644)
    with pytest.raises(ConfigError, match="others could read the council records key"):
        records_key(tmp_path)


def test_a_lost_public_half_is_restored_from_the_private_one(tmp_path: Path) -> None:
    made = fingerprint(records_key(tmp_path).public_key())
    (keys_dir(tmp_path) / RECORDS.public).unlink()
    assert fingerprint(records_key(tmp_path).public_key()) == made
    assert fingerprint(load_public(tmp_path, role=RECORDS)) == made


def test_councils_starting_at_once_end_with_one_pair(tmp_path: Path) -> None:
    """Before the pair was linked into place, 26 of 30 such starts raised FileExistsError or read half a key."""
    found: list[str] = []
    errors: list[BaseException] = []
    together = threading.Barrier(8)

    def first_use() -> None:
        together.wait()
        try:
            found.append(fingerprint(records_key(tmp_path).public_key()))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(found)) == 1 and len(found) == 8
    assert {path.name for path in keys_dir(tmp_path).iterdir()} == {"records_ed25519", "records_ed25519.pub"}


def test_keys_alone_shows_both_fingerprints_and_makes_nothing(tmp_path: Path) -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    none = chrysalis("keys", "--json", cwd=tmp_path)
    assert none.returncode == 0, none.stderr
    assert json.loads(none.stdout) == {"approval": None, "records": None}
    assert not keys_dir(home).exists()
    approval = init_keys(home)
    records = fingerprint(records_key(home).public_key())
    shown = chrysalis("keys", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"approval key {approval.fingerprint}: {approval.public}" in shown.stdout
    assert f"council records key {records}: {keys_dir(home) / RECORDS.public}" in shown.stdout
    report = json.loads(chrysalis("keys", "--json", cwd=tmp_path).stdout)
    assert report["approval"]["fingerprint"] == approval.fingerprint and report["approval"]["encrypted"] is False
    assert report["records"]["fingerprint"] == records
