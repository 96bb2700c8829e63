"""What a run leaves behind, however it ended: eval rows (one per model's part), totals, the context version.

A run is one part, or two under a draft→refine chain: each model's eval row learns from its own part.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from chrysalis.agent.loop import Tally
from chrysalis.config import Settings
from chrysalis.stores import Stores

__all__ = ["RunRecorder", "Totals", "save_context"]


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
    """Logs one run's parts to the eval store and adds them to the session's totals."""

    def __init__(self, stores: Stores, totals: Totals, run_id: str, task_type: str, tally: Tally) -> None:
        self._stores, self._totals = stores, totals
        self._run_id, self._task_type, self._tally = run_id, task_type, tally
        self._before = _Spent()

    def part(self, *, profile: str, model: str, success: bool) -> None:
        """Log what the run used since the last part, as ``model``'s (with ``profile``)."""
        t, before = self._tally, self._before
        now = _Spent(t.cost_usd, t.input_tokens, t.output_tokens, t.duration_ms)
        cost, tokens_in = now.cost_usd - before.cost_usd, now.input_tokens - before.input_tokens
        tokens_out = now.output_tokens - before.output_tokens
        self._totals.cost_usd += cost
        self._totals.tokens += tokens_in + tokens_out
        self._stores.evals.log(
            run_id=self._run_id,
            profile=profile,
            task_type=self._task_type,
            model=model,
            success=success,
            duration_ms=now.duration_ms - before.duration_ms,
            cost_usd=cost,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
        )
        self._before = now


def save_context(stores: Stores, name: str, settings: Settings, system: str) -> None:
    """Keep a new version of the workspace's context: prompt, mode and priority (the messages are the session's)."""
    previous = stores.context.load(name)
    updated = dataclasses.replace(previous, system=system, mode=settings.mode, priority=settings.priority, history=())
    stores.context.save(updated, name)
