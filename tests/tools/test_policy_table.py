"""The policy table in docs/security.md is the policy: every tool x level x mode, checked against ``Policy``."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from chrysalis.capabilities.knowledge.tools import kg_tools
from chrysalis.capabilities.memory.tools import memory_tools
from chrysalis.capabilities.subscriptions.following import Subscriptions, subscription_tools
from chrysalis.config import LEVEL_NAMES, MODES
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.policy import Policy
from chrysalis.tools.registry import builtin_tools

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
with tempfile.TemporaryDirectory() as _home, Stores.open(Path(_home)) as _stores:
    _subscriptions = Subscriptions(_stores.subscriptions, Path(_home))
    # the specs only: no call runs here
    TOOLS = (
        builtin_tools()
        | memory_tools(_stores.memory)
        | kg_tools(_stores.knowledge)
        | subscription_tools(_subscriptions)
    )
DOC_WRITES: dict[str, dict[str, Any]] = {
    "write_file": {"path": "docs/plan.md", "content": "x"},
    "edit_file": {"path": "docs/plan.md", "old_text": "a", "new_text": "b"},
    "apply_patch": {"patch": "--- a/docs/plan.md\n+++ b/docs/plan.md\n@@ -1 +1 @@\n-a\n+b\n"},
    "git_commit": {"message": "plan"},
}
"""Arguments that write only doc files, for architect mode ("docs only")."""


def _table(first_header: str) -> dict[str, list[str]]:
    """The markdown table whose header starts with ``| first_header |``: row name -> cells."""
    lines = DOC.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"^\| {first_header} \|", line))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        name, *cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[name] = cells
    return rows


LEVEL_TABLE = _table("tool")
MODE_TABLE = _table("effect")


WEB_FETCH = {"url": "https://example.com/page"}
"""A public domain the session has not approved: asked about below level 3 (``tools/domains.py``)."""


def _args(spec: ToolSpec, mode: str) -> Any:
    if mode == "architect" and spec.name in DOC_WRITES:
        return spec.args.model_validate(DOC_WRITES[spec.name])
    if spec.name == "web_fetch":
        return spec.args.model_validate(WEB_FETCH)
    return spec.args.model_construct()  # elsewhere the arguments play no part without rules


def _expected(spec: ToolSpec, level: int, mode: str, yes: bool) -> str:
    allowed_in_mode = MODE_TABLE[spec.effect][MODES.index(mode)]
    kind = LEVEL_TABLE[spec.name][level]
    if allowed_in_mode == "no" or (allowed_in_mode == "docs only" and not spec.write_targets(_args(spec, mode))):
        return "deny"
    return "allow" if kind == "ask" and yes else kind


def test_the_tables_cover_every_tool_level_and_mode() -> None:
    assert set(LEVEL_TABLE) == set(TOOLS)
    assert all(len(cells) == len(LEVEL_NAMES) for cells in LEVEL_TABLE.values())
    assert {spec.effect for spec in TOOLS.values()} <= set(MODE_TABLE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("level", sorted(LEVEL_NAMES))
@pytest.mark.parametrize("yes", [False, True])
def test_every_tool_is_decided_as_the_table_says(mode: str, level: int, yes: bool) -> None:
    policy = Policy(level=level, mode=mode, auto_approve=yes)
    wrong = {
        name: (decided, expected)
        for name, spec in TOOLS.items()
        if (decided := policy.decide(spec, _args(spec, mode)).kind) != (expected := _expected(spec, level, mode, yes))
    }
    assert wrong == {}


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_is_offered_exactly_when_its_mode_can_allow_it(mode: str) -> None:
    policy = Policy(level=3, mode=mode)
    for name, spec in TOOLS.items():
        assert policy.offers(spec) == (MODE_TABLE[spec.effect][MODES.index(mode)] != "no"), name
