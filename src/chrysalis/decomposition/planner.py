"""The decompose op: one model call (a ``SplitTask`` module) says whether a task is atomic or splits it.

A split is a critical step: a bad one sends every sub-agent below it the wrong way. So it is voted
at the priority's level (``chrysalis.voting``; seed 001's "vote" op): voter ``i`` samples at a
temperature that grows with ``i`` (voter 0 is greedy), the answers are normalised to their shape
(atomic, or split into N subtasks) and counted with first-to-ahead-by-k; the first sample of the
winning shape is the split used. A reply with more subtasks than the limit allows, empty subtasks or
one subtask that merely restates the task is red-flagged and redrawn, never counted.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chrysalis.evolve.module import Predict, Prediction
from chrysalis.evolve.signature import InputField, OutputField, Signature

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["Planner", "Split", "SplitTask"]


class SplitTask(Signature):
    """Decide how to do a task: whole, or split into independent subtasks.

    If one agent can do it in a few steps, set atomic to true and give no subtasks. Otherwise set
    atomic to false and split it into at most max_subtasks independent subtasks; each subtask must be
    a complete instruction that makes sense on its own, without the others.
    """

    task: str = InputField()
    max_subtasks: int = InputField(desc="the most subtasks allowed")
    hint: str = InputField(desc="how a similar task was split before, or 'none'")
    atomic: bool = OutputField(desc="true when one agent can do the whole task directly")
    subtasks: list[str] = OutputField(desc="the subtasks when not atomic; [] when atomic")


@dataclass
class Split:
    """What the planner decided for one task, and what deciding cost."""

    atomic: bool
    subtasks: list[str]
    cost_usd: float = 0.0
    tokens: int = 0
    detail: str = ""
    """How the decision was reached (the vote's counts, or a single sample)."""


def _shape(prediction: Prediction) -> Hashable:
    subtasks = [s for s in prediction.subtasks if str(s).strip()]
    return "atomic" if prediction.atomic or not subtasks else f"split into {len(subtasks)}"


@dataclass
class Planner:
    """Splits tasks with ``model``, voting each split with ``voting`` (``VotingConfig``)."""

    model: Model | str | None
    voting: Any
    """A ``chrysalis.voting.VotingConfig``; n = 1 means one greedy sample, no vote."""
    module: Predict = field(default_factory=lambda: Predict(SplitTask))

    async def split(self, task: str, *, max_subtasks: int, hint: str = "none") -> Split:
        """Decide ``task``: atomic, or up to ``max_subtasks`` subtasks."""
        from chrysalis.voting import VoteError, vote_async

        spent = {"cost": 0.0, "tokens": 0}
        by_shape: dict[Hashable, Prediction] = {}
        counter = itertools.count()

        async def sample(i: int) -> Prediction:
            temperature = 0.0 if i == 0 else min(1.0, 0.3 + 0.1 * i)
            module = Predict(
                SplitTask,
                instructions=self.module.instructions,
                demos=self.module.demos,
                params={**self.module.params, "temperature": temperature},
            )
            prediction = await module.acall(model=self.model, task=task, max_subtasks=max_subtasks, hint=hint)
            spent["cost"] += prediction.stats.cost_usd
            spent["tokens"] += prediction.stats.input_tokens + prediction.stats.output_tokens
            by_shape.setdefault(_shape(prediction), prediction)
            next(counter)
            return prediction

        def red_flag(prediction: Prediction) -> str | None:
            subtasks = [str(s).strip() for s in prediction.subtasks]
            if prediction.atomic:
                return None
            if len(subtasks) > max_subtasks:
                return "too_many_subtasks"
            if any(not s for s in subtasks):
                return "empty_subtask"
            if len(subtasks) == 1 and subtasks[0].lower() == task.strip().lower():
                return "restated_task"
            return None

        try:
            result = await vote_async(sample, self.voting, normalize=_shape, red_flag=red_flag)
        except VoteError as exc:  # no usable split: the task runs whole rather than not at all
            return Split(
                atomic=True,
                subtasks=[],
                cost_usd=spent["cost"],
                tokens=int(spent["tokens"]),
                detail=f"no usable split ({exc}); runs whole",
            )
        winner = by_shape.get(result.winner) or by_shape.get(_shape(result.winner))
        if winner is None:  # the winner is a raw answer the voting kept as is
            winner = result.winner
        counts = ", ".join(f"{shape}: {n}" for shape, n in result.counts.items())
        detail = f"vote of {next(counter)} samples ({counts}){'' if result.consensus else ', no consensus'}"
        subtasks = [str(s).strip() for s in winner.subtasks if str(s).strip()]
        atomic = bool(winner.atomic) or not subtasks
        return Split(
            atomic=atomic,
            subtasks=[] if atomic else subtasks[:max_subtasks],
            cost_usd=spent["cost"],
            tokens=int(spent["tokens"]),
            detail=detail,
        )
