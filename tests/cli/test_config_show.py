"""``chrysalis config show`` in process: every setting once, grouped by concern, each with its source."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from chrysalis.cli.config_cmd import show_config
from chrysalis.config import CONCERNS, ENTRIES, SettingFlags


def shown(flags: SettingFlags) -> dict[str, list[str]]:
    """The table's rows by key: value, from, concern."""
    out = io.StringIO()
    assert show_config(flags, Console(file=out, width=400)) == 0
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.getvalue().splitlines()]
    return {row[0]: row[1:] for row in rows if len(row) == 4 and row[0]}


def test_every_setting_is_listed_once_in_the_order_of_its_concern(workspace: Path) -> None:
    rows = shown(SettingFlags(workspace=workspace))
    settings = [key for key in rows if key not in ("home", "warnings")]
    by_concern = sorted(ENTRIES, key=lambda entry: CONCERNS.index(entry.concern))
    assert settings == [entry.name for entry in by_concern]
    firsts = {rows[key][2]: key for key in settings if rows[key][2]}
    assert list(firsts) == list(CONCERNS)  # the concern is named on the first row of each group
    assert rows["max_steps"] == ["30", "default", ""] and rows["home"][1] == "env CHRYSALIS_HOME"


def test_permission_rules_show_their_action_and_rule_and_where_they_came_from(
    workspace: Path, chrysalis_home: Path
) -> None:
    user = chrysalis_home / "config.toml"
    user.write_text('[permissions]\nallow = ["shell(pytest:*)"]\ndeny = ["write_file(docs/**)"]\n')
    rows = shown(SettingFlags(workspace=workspace))
    assert rows["permissions"][:2] == ["allow shell(pytest:*), deny write_file(docs/**)", f"{user}:1"]
