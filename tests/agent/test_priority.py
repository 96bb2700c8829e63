"""``--priority`` reaches the run: the plan it makes, and what a run does differently under it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import Check, Event, Start
from chrysalis.evolve.priority import KEYWORD_PLANS, DecompositionLimits, plan_for
from chrysalis.llm.testing import ScriptedModel, ScriptedOpenAIServer, final, tool
from chrysalis.voting import VotingConfig
from tests.helpers import run_agent

SEED_001_LIMITS = {  # seed 001, "Default Limits by Priority"
    "cheap": DecompositionLimits(2, 4, 0.10, 20_000, 0.5),
    "fast": DecompositionLimits(2, 8, 0.50, 40_000, 0.5),
    "best": DecompositionLimits(4, 8, 2.00, 80_000, 0.6),
    "verbose": DecompositionLimits(5, 12, 5.00, 100_000, 0.7),
}


@pytest.mark.parametrize("keyword", list(SEED_001_LIMITS))
def test_keywords_take_seed_001s_limits(keyword: str) -> None:
    assert plan_for(keyword).limits == SEED_001_LIMITS[keyword]


def test_every_voting_level_is_one_voting_knows() -> None:
    for plan in KEYWORD_PLANS.values():
        VotingConfig.level(plan.voting)  # raises on an unknown level


@pytest.mark.parametrize(
    ("priority", "keyword", "voting", "weights", "refine"),
    [
        ("cheap", "cheap", "none", (3.0, 0.5, 0.0), False),
        (None, "best", "medium", (1.0, 0.0, 0.5), True),
        ("fast cheap", "cheap", "none", (3.0, 0.5, 0.0), False),
        ("accurate, money is no object", "accurate", "critical", (0.0, 0.0, 2.0), True),
        ("I need speed", "fast", "none", (1.0, 3.0, 0.0), False),
        ("explain fully but be cheap", "cheap", "medium", (3.0, 0.5, 0.0), False),
    ],
)
def test_a_priority_is_read_into_a_plan(
    priority: str | None, keyword: str, voting: str, weights: tuple[float, float, float], refine: bool
) -> None:
    plan = plan_for(priority)
    assert (plan.keyword, plan.voting, plan.refine) == (keyword, voting, refine)
    preference = plan.preference()
    assert (
        (preference.cost, preference.speed, preference.strength)
        == weights
        == (plan.cost_weight, plan.speed_weight, plan.strength_weight)
    )
    assert plan.reason


def test_an_unrecognised_sentence_is_best_and_says_so() -> None:
    plan = plan_for("make it nice")
    assert plan.keyword == "best" and "did not recognise 'make it nice'" in plan.reason


def run_lazily(workspace: Path, priority: str) -> tuple[ScriptedModel, list[Event]]:
    """A model that writes a note and then says "done" however often the failing check sends it back."""
    script = ScriptedModel([tool("write_file", path="notes.txt", content="x\n"), final("done, the tests pass")])
    _, events = run_agent(workspace, script, "make the failing test pass", priority=priority, level=3, yes=True)
    return script, events


def test_the_same_task_under_two_priorities_runs_differently(workspace: Path) -> None:
    cheap, cheap_events = run_lazily(workspace, "cheap")
    careful, careful_events = run_lazily(workspace, "accurate, money is no object")

    # The check fails (the note fixed nothing); its verdict goes back to the model once, or three times.
    assert (len(cheap.seen), len(careful.seen)) == (3, 5)
    for events in (cheap_events, careful_events):
        assert any(isinstance(e, Check) and not e.passed for e in events)
    assert "Priority: keep it short and cheap" in cheap.instructions[0]
    assert "Priority: correctness above all" in careful.instructions[0]
    starts = [next(e for e in events if isinstance(e, Start)) for events in (cheap_events, careful_events)]
    plans = [s.priority_plan for s in starts]
    assert plans[0] is not None and plans[1] is not None
    assert (plans[0]["voting"], plans[1]["voting"]) == ("none", "critical")
    assert "money is no object" in plans[1]["reason"]


def test_auto_weighs_cost_by_priority(workspace: Path) -> None:
    """``--model auto``'s prior favours the cheaper model under ``cheap``, the stronger when "money is no object"."""
    alphas = {}
    for priority in ("cheap", "accurate, money is no object"):
        events: list[Event] = []
        with ScriptedOpenAIServer(["It adds."]) as server:
            models = "openai:gpt-4o-mini, openai:gpt-4o"
            settings = load_settings(
                {
                    "workspace": workspace,
                    "model": "auto",
                    "base_url": server.base_url,
                    "auto_models": models,
                    "priority": priority,
                }
            )
            session = AgentSession(settings, on_event=events.append)
            asyncio.run(session.run("explain calc.py"))
            session.close()
        start = next(e for e in events if isinstance(e, Start))
        assert start.candidates is not None
        alphas[priority] = [c["alpha"] - c["successes"] for c in start.candidates]  # the prior's part
    assert alphas["cheap"][0] > alphas["cheap"][1]  # the cheaper model gets a head start
    no_object = alphas["accurate, money is no object"]
    assert no_object[0] == 1.0 and no_object[1] > 1.0  # cost counts for nothing: gpt-4o, the stronger, leads
