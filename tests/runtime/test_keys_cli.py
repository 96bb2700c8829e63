"""``chrysalis keys init``: made once, mode 600, never overwritten, and the same in JSON."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.helpers import chrysalis


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
