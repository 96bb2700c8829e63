"""``chrysalis fix``: a scripted model over HTTP, ``--json`` events, undo, and clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer
from tests.helpers import assert_clean_error, chrysalis
from tests.repair.conftest import FIXED_LINE, STATS

RIGHT = json.dumps({"line": 6, "code": "return total / len(values)"})
YES = {"CHRYSALIS_YES": "1"}
"""``yes`` from the environment (as ``--yes``): approve what the level allows."""


def test_fix_applies_reports_json_events_and_undo_takes_it_back(project: Path) -> None:
    with ScriptedOpenAIServer([RIGHT, RIGHT, RIGHT]) as server:
        done = chrysalis(
            "fix", "--model", "m", "--base-url", server.base_url, "--samples", "3", "--json", cwd=project, env=YES
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == ["repair_round", "repair_end"]
    end = events[-1]
    assert end["success"] and end["applied"] and end["votes"] == 2 and "+" + FIXED_LINE.rstrip() in end["diff"]
    assert FIXED_LINE in (project / "stats.py").read_text()
    undone = chrysalis("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert (project / "stats.py").read_text() == STATS


def test_fix_at_level_1_shows_the_patch_and_writes_nothing(project: Path) -> None:
    with ScriptedOpenAIServer([RIGHT, RIGHT, RIGHT]) as server:
        done = chrysalis(
            "fix",
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--samples",
            "3",
            "--level",
            "1",
            cwd=project,
            env={"COLUMNS": "200"},
        )
    assert done.returncode == 0, done.stderr
    assert "not applied" in done.stdout and "use --level 2" in done.stdout and "+    return total / len" in done.stdout
    assert (project / "stats.py").read_text() == STATS


def fix(project: Path, *flags: str, yes: bool = False) -> subprocess.CompletedProcess[str]:
    with ScriptedOpenAIServer([RIGHT, RIGHT, RIGHT]) as server:
        args = ("fix", "--model", "m", "--base-url", server.base_url, "--samples", "3", *flags)
        return chrysalis(*args, cwd=project, env={"COLUMNS": "200"} | (YES if yes else {}))


def test_fix_does_not_write_a_file_a_deny_rule_forbids_and_names_the_rule(project: Path) -> None:
    config = project / ".chrysalis" / "config.toml"
    config.parent.mkdir()
    config.write_text('[permissions]\ndeny = ["edit_file(stats.py)"]\n')  # narrowing: applies untrusted too
    done = fix(project, "--level", "3", yes=True)
    assert done.returncode == 0, done.stderr
    source = f"{config}:1"  # the file and line of the rule
    rule = f"the rule deny edit_file(stats.py) ({source}) forbids writing stats.py."
    assert f"not applied: {rule} Remove that rule from {source} to apply it." in done.stdout
    assert "+    return total / len" in done.stdout and (project / "stats.py").read_text() == STATS


def test_fix_in_architect_mode_shows_the_patch_and_writes_nothing(project: Path) -> None:
    done = fix(project, "--level", "3", "--mode", "architect", yes=True)
    assert done.returncode == 0, done.stderr
    assert "not applied: level 3, mode architect cannot write files" in done.stdout
    assert (project / "stats.py").read_text() == STATS


def test_fix_at_level_2_unapproved_writes_nothing_when_no_one_can_approve(project: Path) -> None:
    done = fix(project, "--json")  # level 2 by default; --json and no terminal: nobody can approve
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == ["repair_round", "approval_request", "repair_end"]
    asked, end = events[1], events[2]
    assert asked["tool"] == "write_file" and asked["args"]["path"] == "stats.py" and not asked["approved"]
    assert end["success"] and not end["applied"] and (project / "stats.py").read_text() == STATS
    said = fix(project)  # on no terminal either: the same, said in words
    assert "not applied: at level 2 a patch needs your approval, and no one can approve it here" in said.stdout
    assert "rerun with --yes" in said.stdout and (project / "stats.py").read_text() == STATS


@pytest.mark.parametrize("flag", ["--yes", "-y"])
def test_fix_yes_applies_at_level_2_without_asking(project: Path, flag: str) -> None:
    done = fix(project, flag, "--json")  # without it: asked, no one can approve, not applied (above)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == ["repair_round", "repair_end"]  # no approval_request
    assert events[-1]["applied"] and FIXED_LINE in (project / "stats.py").read_text()


def test_fix_with_no_test_command_or_bad_counts_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_clean_error(chrysalis("fix", cwd=empty), 2, "No test command", "--test")
    assert_clean_error(chrysalis("fix", "--samples", "0", cwd=empty), 2, "--samples 0")
    assert_clean_error(
        chrysalis("fix", "--forms", "line,patch", cwd=empty),
        2,
        "--forms 'line,patch'",
        "unknown form 'patch'",
        "line, function, diff",
    )


def test_fix_refuses_a_budget_it_could_not_enforce(project: Path) -> None:
    done = chrysalis(
        "fix",
        "--model",
        "openai:some-unpriced-model",
        "--base-url",
        "http://127.0.0.1:9",
        "--budget",
        "0.5",
        "--test",
        "python -m pytest -q",
        cwd=project,
    )
    assert_clean_error(done, 2, "--budget", "cannot be enforced", "[prices]")
    assert (project / "stats.py").read_text() == STATS
