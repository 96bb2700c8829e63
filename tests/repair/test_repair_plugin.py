"""The repair plug-in offers ``repair`` where the run's policy may let it run, on a model it can sample."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from chrysalis.capabilities.repair.plugin import RepairPlugin
from chrysalis.capabilities.scope import RunScope
from chrysalis.config import load_settings
from chrysalis.stores import Stores
from chrysalis.tools.policy import Policy
from chrysalis.tools.registry import builtin_tools
from chrysalis.tools.rules import Action, Rule

SERVER = "http://127.0.0.1:9"
"""An OpenAI-compatible server's URL (never reached): the model has a sampling path."""


@pytest.fixture
def stores(chrysalis_home: Path) -> Iterator[Stores]:
    with Stores.open(chrysalis_home) as opened:
        yield opened


def scope(
    stores: Stores, workspace: Path, *, deny: str | None = None, ask: str | None = None, **flags: Any
) -> RunScope:
    """A coder run's scope with ``flags`` (level, mode, model, base_url); its policy from them and the rules."""
    given = {"workspace": workspace, "model": "m", "base_url": SERVER} | flags
    settings = load_settings({key: value for key, value in given.items() if value is not None})
    asked: tuple[tuple[Action, str | None], ...] = (("deny", deny), ("ask", ask))
    rules = [Rule.parse(text, action, "config.toml") for action, text in asked if text]
    return RunScope(
        run_id="r1",
        task="make the failing tests pass",
        settings=settings,
        stores=stores,
        emit=lambda _event: None,
        model=lambda: pytest.fail("the plug-in needs no model to decide"),
        model_name=settings.model,
        profile="coder",
        tools=builtin_tools(),
        tools_given=False,
        model_given=False,
        conversation=None,
        saved=False,
        sub_agent=False,
        durable=False,
        policy=replace(Policy.from_settings(settings), rules=tuple(rules)),
    )


@pytest.mark.parametrize(
    ("flags", "offered"),
    [
        ({"mode": "code", "level": 2}, True),
        ({"mode": "code", "level": 3}, True),
        ({"mode": "code", "level": 2, "yes": True}, True),
        ({"mode": "code", "level": 3, "ask": "repair"}, True),  # offered; the call asks
        ({"mode": "code", "level": 1}, False),
        ({"mode": "code", "level": 0}, False),
        ({"mode": "architect", "level": 3}, False),
        ({"mode": "ask", "level": 3}, False),
        ({"mode": "semantic", "level": 3}, False),
        ({"mode": "code", "level": 3, "deny": "repair"}, False),
        ({"mode": "code", "level": 3, "deny": "*"}, False),
        ({"mode": "code", "level": 3, "deny": "write_file"}, False),  # none of its patches could be written
        ({"mode": "code", "level": 3, "deny": "edit_file"}, False),
        ({"mode": "code", "level": 3, "deny": "edit_file(secret.py)"}, True),  # judged at the patch
        ({"mode": "code", "level": 3, "model": "openai:gpt-4o-mini", "base_url": None}, False),  # no sampling path
    ],
)
def test_repair_is_offered_where_the_policy_may_let_it_run(
    stores: Stores, workspace: Path, flags: dict[str, Any], offered: bool
) -> None:
    offer = RepairPlugin().offer(scope(stores, workspace, **flags))
    assert ("repair" in offer.tools) == offered
    assert ("run_tests" in offer.tools) == offered  # pointing at repair only where repair is there
    if offered:
        assert offer.tools["repair"].writes_through_policy


def test_repair_is_not_offered_to_a_run_whose_tools_or_model_were_given_or_that_does_not_code(
    stores: Stores, workspace: Path
) -> None:
    run = scope(stores, workspace, mode="code", level=3)
    assert "repair" in RepairPlugin().offer(run).tools
    assert not RepairPlugin().offer(replace(run, tools_given=True)).tools
    assert not RepairPlugin().offer(replace(run, model_given=True)).tools  # it would sample another model
    assert not RepairPlugin().offer(replace(run, profile="reader")).tools
