"""Voting in the agent's own steps (seed 001): critical replies are drawn several times and voted on.

A small model that writes the wrong file, or runs ``rm -rf`` once in a hundred steps, should not be
trusted with that step on one draw. So when a reply is *critical*, the framework draws more
candidate replies to the same request (voter ``i`` at its own temperature and seed, as
``chrysalis.llm.sampling`` decorrelates them), discards red-flagged ones (too long, malformed,
hedging, repeating: redrawn, never re-prompted), and keeps the reply whose normalised calls lead
first-to-ahead-by-k. Critical, from seed 001:

- ``destructive``: a shell command that deletes, force-pushes, resets or rewrites (always on);
- ``writes``: a call whose effect is a write, a command or a commit, when the priority's voting
  level is ``medium`` or more;
- ``low_success_rate``: every step, when this task type's recorded success rate on this model is
  below the priority's ``min_success_rate`` (also under a priority whose level is ``none``: the
  record overrides a wish to save; not when the user says ``--voting none``).

This module decides (which triggers are on, what is critical, how candidates are counted and
flagged); ``agent/voting_model.py`` draws and votes. The first candidate is the model's ordinary
reply, streamed as usual; only when it is critical are the others drawn (on the embedded model they
reuse the whole prompt from the KV cache, so each costs only its own tokens). Each vote is a ``vote``
event.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.voting import LEVELS, VotingConfig, red_flags

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelResponse

    from chrysalis.config import Settings
    from chrysalis.stores.evals import EvalStore
    from chrysalis.tools.base import Effect

__all__ = ["StepVoting", "call_key", "critical_reason", "describe", "is_destructive", "red_flag", "step_voting"]

_DESTRUCTIVE = re.compile(
    r"\brm\s|\bgit\s+(push\s+.*(-f\b|--force)|reset\s+--hard|clean\s+-[a-z]*f"
    r"|checkout\s+--\s|branch\s+-D)|\bmkfs\b|\bdd\s+.*\bof=|\bshred\b|\btruncate\b|\bfind\b.*\s-delete\b"
    r"|\bchmod\s+-R\b|\bdrop\s+(table|database)\b",
    re.IGNORECASE,
)
"""Shell commands that destroy work beyond the agent's undo (its checkpoints cover files it writes)."""
_HEDGING = red_flags.hedging()
_REPETITION = red_flags.repetition()
MAX_REPLY_CHARS = 12_000
"""A candidate longer than this (text and arguments) is red-flagged ``too_long``."""
MIN_RUNS = 3
"""Runs of a task type on a model before its success rate may switch on ``low_success_rate``."""


def is_destructive(command: str) -> bool:
    """Whether a shell command deletes, force-pushes, resets or rewrites beyond the agent's undo."""
    return bool(_DESTRUCTIVE.search(command))


@dataclass(frozen=True)
class StepVoting:
    """Which voting triggers a run has on, and how each votes (seed 001's levels)."""

    level: str
    """The priority's voting level (``none`` … ``critical``)."""
    writes: bool
    low_success_rate: bool
    success_rate: float | None = None

    @classmethod
    def for_run(cls, level: str, min_success_rate: float, success_rate: float | None) -> StepVoting:
        """The triggers of a run at voting ``level`` whose task type succeeds at ``success_rate`` on its model."""
        at_least_medium = list(LEVELS).index(level) >= list(LEVELS).index("medium")
        low = success_rate is not None and success_rate < min_success_rate
        return cls(level=level, writes=at_least_medium, low_success_rate=low, success_rate=success_rate)

    @property
    def triggers(self) -> list[str]:
        """The triggers that are on (``destructive`` always is)."""
        on = ["destructive"]
        on += ["writes"] if self.writes else []
        on += ["low_success_rate"] if self.low_success_rate else []
        return on

    def config(self) -> VotingConfig:
        """The vote of a critical step: the priority's level, at least ``medium`` (3 voters, ahead by 2)."""
        order = list(LEVELS)
        name = order[max(order.index(self.level), order.index("medium"))]
        n, k = LEVELS[name]
        return VotingConfig(n=n, k=k, max_samples=4 * n)

    def to_json(self) -> dict[str, Any]:
        """What the ``start`` event says about voting."""
        return {"level": self.level, "triggers": self.triggers, "success_rate": self.success_rate}


def step_voting(settings: Settings, evals: EvalStore, task_type: str, model: str) -> StepVoting:
    """The triggers of one run: the priority's level, and this task type's record on this model."""
    from chrysalis.evolve.priority import plan_of

    plan = plan_of(settings)
    rate = next(
        (s.success_rate for s in evals.by_model(task_type) if s.model == model and s.runs >= MIN_RUNS),
        None,
    )
    # `--voting none` is the user's word against voting: no record turns it back on (a floor of 0
    # is never undercut). A priority of level none (fast, cheap) only prefers saving, so it does not.
    floor = 0.0 if settings.voting == "none" else plan.limits.min_success_rate
    return StepVoting.for_run(plan.voting, floor, rate)


def critical_reason(response: ModelResponse, effects: dict[str, Effect], voting: StepVoting) -> str | None:
    """Why ``response`` must be voted on (a trigger's name), or None: it runs on one draw."""
    calls = [part for part in response.parts if part.part_kind == "tool-call"]
    for call in calls:
        if effects.get(call.tool_name) == "shell" and is_destructive(str(_arguments(call).get("command", ""))):
            return "destructive"
    if voting.writes and any(effects.get(call.tool_name) in ("write", "shell") for call in calls):
        return "writes"
    return "low_success_rate" if voting.low_success_rate else None


def call_key(response: ModelResponse) -> Hashable:
    """What candidates are counted by: each call's tool and arguments (JSON, keys sorted); else the answer's words."""
    calls = tuple(
        (part.tool_name, json.dumps(_arguments(part), sort_keys=True))
        for part in response.parts
        if part.part_kind == "tool-call"
    )
    if calls:
        return calls
    return ("answer", " ".join(_text(response).split()))


def red_flag(response: ModelResponse, tools: set[str]) -> str | None:
    """The red flag a candidate raises: ``too_long``, ``malformed``, ``hedging`` or ``repetition`` (None: none)."""
    calls = [part for part in response.parts if part.part_kind == "tool-call"]
    size = len(_text(response)) + sum(len(json.dumps(_arguments(call))) for call in calls)
    if size > MAX_REPLY_CHARS:
        return "too_long"
    details = response.provider_details or {}
    if details.get("corrections") or any(call.tool_name not in tools for call in calls):
        return "malformed"
    if any(_arguments(call) == _INVALID for call in calls):
        return "malformed"
    return _HEDGING(_text(response)) or _REPETITION(_text(response))


_INVALID: dict[str, Any] = {"__invalid__": True}
"""What ``_arguments`` gives for a call whose arguments are not a JSON object (a ``malformed`` candidate)."""


def _arguments(call: Any) -> dict[str, Any]:
    try:
        args: dict[str, Any] = call.args_as_dict()
    except (ValueError, TypeError):
        return dict(_INVALID)
    return args


def _text(response: ModelResponse) -> str:
    return "".join(part.content for part in response.parts if part.part_kind == "text")


def describe(key: Hashable) -> str:
    """A candidate's key as the event shows it: ``shell {"command": "rm -rf build"}``, at most 160 characters."""
    if isinstance(key, tuple) and key and key[0] == "answer":
        text = f"answer: {key[1]}"
    else:
        text = "; ".join(f"{name} {args}" for name, args in key) if isinstance(key, tuple) else str(key)
    return text if len(text) <= 160 else text[:157] + "..."
