"""``chrysalis personas list`` as a user runs it: the table, --json, a malformed file (exit 2), trust."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import assert_clean_error, chrysalis

GOOD = 'priority = 0.4\nmode = "can_interject"\nprompt = "You review."\n'


def test_list_prints_every_persona_with_its_source(chrysalis_home: Path, workspace: Path) -> None:
    (chrysalis_home / "personas").mkdir()
    (chrysalis_home / "personas" / "critic.toml").write_text(GOOD)
    done = chrysalis("personas", "list", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows[0] == ["ada", "0.75", "can_interject", "builtin"]
    assert rows[-1] == ["critic", "0.40", "can_interject", str(chrysalis_home / "personas" / "critic.toml")]


def test_json_is_one_array_of_name_priority_mode_source(chrysalis_home: Path, workspace: Path) -> None:
    (chrysalis_home / "personas").mkdir()
    (chrysalis_home / "personas" / "lea.toml").write_text(GOOD)
    done = chrysalis("personas", "list", "--json", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"name": "ada", "priority": 0.75, "mode": "can_interject", "source": "builtin"},
        {"name": "lea", "priority": 0.4, "mode": "can_interject", "source": str(chrysalis_home / "personas/lea.toml")},
        {"name": "phil", "priority": 0.7, "mode": "can_interject", "source": "builtin"},
        {"name": "david", "priority": 0.9, "mode": "proactive_when_triggered", "source": "builtin"},
    ]


def test_a_malformed_file_exits_2_naming_the_file_and_key_and_prints_nothing_else(
    chrysalis_home: Path, workspace: Path
) -> None:
    (chrysalis_home / "personas").mkdir()
    bad = chrysalis_home / "personas" / "critic.toml"
    bad.write_text(GOOD.replace('"can_interject"', '"loudly"'))
    done = chrysalis("personas", "list", "--json", "--workspace", str(workspace))
    assert_clean_error(done, 2, str(bad), "'mode'", "'loudly'")
    assert done.stdout == ""


def test_an_untrusted_workspaces_personas_are_withheld_with_a_warning_until_trusted(workspace: Path) -> None:
    folder = workspace / ".chrysalis" / "personas"
    folder.mkdir(parents=True)
    (folder / "critic.toml").write_text(GOOD)
    done = chrysalis("personas", "list", "--json", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert [p["name"] for p in json.loads(done.stdout)] == ["ada", "lea", "phil", "david"]
    assert "not a trusted folder" in done.stderr and "critic.toml" in done.stderr and "chrysalis trust" in done.stderr
    assert chrysalis("trust", str(workspace)).returncode == 0
    done = chrysalis("personas", "list", "--json", "--workspace", str(workspace))
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)[-1] == {
        "name": "critic",
        "priority": 0.4,
        "mode": "can_interject",
        "source": str(folder / "critic.toml"),
    }
