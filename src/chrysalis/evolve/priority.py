"""What ``--priority`` changes in a run: one ``PriorityPlan``, read by everything that has a choice to make.

Seed 000 says the priority "propagates through the entire execution stack"; seed 001 gives the
numbers. A priority is a keyword (``fast``, ``cheap``, ``best``, ``verbose``, ``compact``; several
may be combined) or a sentence ("accurate, money is no object"), whose clauses are matched to
intents by ``chrysalis.evolve.selection.intents`` (the same reading that picks a compiled module's
variant). The plan says, and the run's ``start`` event shows with the reason:

- ``voting``: the voting level for critical steps (seed 001: none/low/medium/high/critical,
  ``chrysalis.voting.VotingConfig.level``), used by decomposition and repair;
- ``limits``: seed 001's decomposition limits (depth, breadth, cost, context, success rate);
- ``cost_weight``, ``speed_weight``, ``strength_weight``: how much ``--model auto`` favours cheap,
  fast and strong models (``chrysalis.llm.routing.Preference``: the weights of each candidate's
  fitness, the mean of the router's prior; cost counts 0 when "money is no object");
- ``refine``: whether a failed check under ``--model auto`` hands the conversation to a stronger
  model (seed 001's draft→refine chain; off for ``cheap`` and ``fast``, which would not pay for it);
- ``check_retries``: how often a failing final check goes back to the model;
- ``reasoning``: whether a text-protocol model writes a short thought before each call;
- ``guidance``: a line added to the system prompt (none for ``best``, so the default run is unchanged);
- module variants: the priority itself is what ``select`` reads for compiled modules (``agent.*``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from chrysalis.evolve.selection import intents
from chrysalis.llm.embeddings import LexicalEmbedder

if TYPE_CHECKING:
    from chrysalis.config import Settings
    from chrysalis.llm.routing import Preference

__all__ = ["KEYWORD_PLANS", "DecompositionLimits", "PriorityPlan", "plan_for", "plan_of"]

VOTING_LEVELS = ("none", "low", "medium", "high", "critical")


@dataclass(frozen=True)
class DecompositionLimits:
    """Seed 001's explosion thresholds: past any of them, a decomposition rolls back and runs inline."""

    max_depth: int
    max_breadth: int
    max_cost_usd: float
    max_context: int
    min_success_rate: float


@dataclass(frozen=True)
class PriorityPlan:
    """The choices one priority makes for a run; ``reason`` says how the priority was read."""

    keyword: str
    """The keyword the priority came down to (``cheap``, ``fast``, ``best``, ``verbose``, ``compact``, ``accurate``)."""
    voting: str
    limits: DecompositionLimits
    cost_weight: float
    check_retries: int
    reasoning: bool
    guidance: str
    reason: str = ""
    speed_weight: float = 0.0
    strength_weight: float = 0.0
    refine: bool = False

    def to_json(self) -> dict[str, Any]:
        """The plan as the ``start`` event carries it."""
        return asdict(self)

    def preference(self) -> Preference:
        """The weights ``--model auto`` gives a candidate's cost, speed and strength under this priority."""
        from chrysalis.llm.routing import Preference

        return Preference(cost=self.cost_weight, speed=self.speed_weight, strength=self.strength_weight)


_SHORT = "Priority: keep it short and cheap. Use as few steps and tool calls as you can, and answer in a sentence."
# fmt: skip below: one plan per row reads as a table (keyword, voting, limits, cost weight, retries, reasoning).
KEYWORD_PLANS: dict[str, PriorityPlan] = {
    "cheap": PriorityPlan("cheap", "none", DecompositionLimits(2, 4, 0.10, 20_000, 0.5), 3.0, 1, False, _SHORT,
                          speed_weight=0.5),
    "fast": PriorityPlan("fast", "none", DecompositionLimits(2, 8, 0.50, 40_000, 0.5), 1.0, 1, False,
                         "Priority: speed. Go straight to the change; do not explore more than you need.",
                         speed_weight=3.0),
    "compact": PriorityPlan("compact", "none", DecompositionLimits(2, 4, 0.10, 20_000, 0.5), 1.0, 1, False, _SHORT,
                            speed_weight=0.5),
    "best": PriorityPlan("best", "medium", DecompositionLimits(4, 8, 2.00, 80_000, 0.6), 1.0, 2, False, "",
                         strength_weight=0.5, refine=True),
    "verbose": PriorityPlan("verbose", "high", DecompositionLimits(5, 12, 5.00, 100_000, 0.7), 1.0, 2, True,
                            "Priority: thoroughness. Explain what you found and what you changed in detail.",
                            strength_weight=1.0, refine=True),
    "accurate": PriorityPlan("accurate", "high", DecompositionLimits(4, 8, 2.00, 80_000, 0.6), 1.0, 3, True,
                             "Priority: correctness above all. Check each change with the tests before you answer.",
                             strength_weight=2.0, refine=True),
}  # fmt: skip
"""Seed 001's limits by priority; ``accurate`` is what a sentence about accuracy reads as."""
_INTENT_KEYWORDS = {
    "accuracy": "accurate",
    "low cost": "cheap",
    "speed": "fast",
    "brevity": "compact",
    "detail": "verbose",
}
_STRICT_FIRST = ("cheap", "compact", "fast", "accurate", "verbose", "best")
"""When a priority says several things, the first of these in it decides the limits (resources win)."""


def plan_for(priority: str | None) -> PriorityPlan:
    """The plan for ``priority`` (keywords or a sentence); unrecognised text is ``best``, and says so."""
    text = (priority or "best").strip()
    words = text.lower().replace(",", " ").split()
    if words and all(w in KEYWORD_PLANS for w in words):
        keywords = words
        reason = f"keyword{'s' if len(words) > 1 else ''} {' '.join(words)}"
        no_object = False
    else:
        found = intents(text, LexicalEmbedder())
        keywords = [_INTENT_KEYWORDS[intent] for _, intent, _ in found if intent in _INTENT_KEYWORDS]
        no_object = any(intent == "cost does not matter" for _, intent, _ in found)
        said = ", ".join(f"{clause!r} → {intent}" for clause, intent, _ in found)
        reason = f"read {text!r} as {said}" if found else f"did not recognise {text!r}; planned as best"
    chosen = next((k for k in _STRICT_FIRST if k in keywords), "best")
    plan = replace(KEYWORD_PLANS[chosen], reason=reason)
    if "accurate" in keywords or "verbose" in keywords:  # accuracy asked for alongside a limit: vote more
        plan = replace(plan, voting=max(plan.voting, "medium", key=VOTING_LEVELS.index))
    if no_object:  # "money is no object": ignore cost when choosing models, vote one level higher
        higher = VOTING_LEVELS[min(VOTING_LEVELS.index(plan.voting) + 1, len(VOTING_LEVELS) - 1)]
        plan = replace(
            plan,
            cost_weight=0.0,
            voting=higher,
            strength_weight=max(plan.strength_weight, 2.0),
            limits=replace(plan.limits, max_cost_usd=max(plan.limits.max_cost_usd, 5.00)),
        )
    return plan


def plan_of(settings: Settings) -> PriorityPlan:
    """The plan of ``settings``: its priority's, with the ``voting`` setting's level when it is not ``auto``."""
    plan = plan_for(settings.priority)
    return plan if settings.voting == "auto" else replace(plan, voting=settings.voting)
