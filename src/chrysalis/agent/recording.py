"""What a run leaves behind, however it ended: eval rows (one per model's part), totals, the context version.

A run is one part, or two under a draft→refine chain: each model's eval row learns from its own part.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from chrysalis.agent.learning import task_type
from chrysalis.agent.loop import Tally
from chrysalis.config import Settings
from chrysalis.stores import Stores

__all__ = ["RunRecorder", "Totals", "save_context", "workspace_context"]


@dataclass
class Totals:
    """What a session's runs have spent so far (``/cost``)."""

    cost_usd: float = 0.0
    tokens: int = 0


@dataclass(frozen=True)
class _Spent:
    """What a run had spent at one moment."""

    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0


class RunRecorder:
    """One run's tally and type; logs its parts to the eval store and adds them to the session's totals."""

    def __init__(self, stores: Stores, totals: Totals, run_id: str, task: str) -> None:
        self._stores, self._totals, self._run_id = stores, totals, run_id
        self.kind = task_type(task)
        """The task's type (``fix``, ``test``, ...): the eval store learns per type."""
        self.tally = Tally()
        """What the run uses, counted by the loop; sub-agents add their costs to it."""
        self._before = _Spent()

    def part(self, *, profile: str, model: str, success: bool) -> None:
        """Log what the run used since the last part, as ``model``'s (with ``profile``)."""
        t, before = self.tally, self._before
        now = _Spent(t.cost_usd, t.input_tokens, t.output_tokens, t.duration_ms)
        cost, tokens_in = now.cost_usd - before.cost_usd, now.input_tokens - before.input_tokens
        tokens_out = now.output_tokens - before.output_tokens
        self._totals.cost_usd += cost
        self._totals.tokens += tokens_in + tokens_out
        self._stores.evals.log(
            run_id=self._run_id,
            profile=profile,
            task_type=self.kind,
            model=model,
            success=success,
            duration_ms=now.duration_ms - before.duration_ms,
            cost_usd=cost,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
        )
        self._before = now


def workspace_context(settings: Settings) -> str:
    """The context of ``settings``' workspace: tool hints and history belong to one project."""
    return f"workspace:{settings.workspace}"


def save_context(stores: Stores, settings: Settings, system: str) -> None:
    """Keep a new version of the workspace's context: prompt, mode and priority (the messages are the session's)."""
    name = workspace_context(settings)
    previous = stores.context.load(name)
    updated = dataclasses.replace(previous, system=system, mode=settings.mode, priority=settings.priority, history=())
    stores.context.save(updated, name)
