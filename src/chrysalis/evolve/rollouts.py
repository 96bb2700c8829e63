"""One compile's state: its rollouts against the budget, the compile cache, screening, the archive.

``CompileRun`` is what ``compile`` drives (``compile.py`` is the table of contents): ``rollout``
runs a variant on one example (or replays it from the compile cache), ``evaluate`` scores a
variant on the dev set after ``screen`` lets it through, ``proposal`` asks the meta model for
instructions. Every step checks the budget first and raises ``BudgetExhausted`` when the next one
would not fit; every finished step is written to the cache, so a rerun replays it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chrysalis.errors import OutputValidationError
from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point
from chrysalis.evolve.metrics import MetricFn, score_prediction
from chrysalis.evolve.module import Module
from chrysalis.evolve.options import Budget
from chrysalis.evolve.reflect import propose

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from chrysalis.stores import CompileCache

__all__ = ["BudgetExhausted", "CompileProgress", "CompileRun", "Example"]

Example = Mapping[str, Any]


@dataclass(frozen=True)
class CompileProgress:
    """One progress report: what compile is doing and how much of the budget it has used."""

    phase: str
    """``bootstrap``, ``seed``, ``iteration N``, or ``done``."""
    candidates: int
    rollouts: int
    rollout_budget: int | None
    cost_usd: float
    best_score: float | None
    replayed: int
    """Rollouts answered from the compile cache (a resumed compile) instead of the model."""
    model_calls: int = 0
    """Model requests behind the rollouts (a validation retry is a second request in one rollout)."""
    screened_out: int = 0
    """Variants rejected on their minibatch (never run on the whole dev set, not in the archive)."""


class BudgetExhausted(Exception):
    """Internal: the next step would exceed the rollout or USD budget."""


@dataclass(kw_only=True)
class CompileRun:
    """The state of one compile: budget, cache, randomness and the archive being filled."""

    module: Module
    """The base module (the one being compiled)."""
    metric_name: str
    metric: MetricFn
    model: Model
    meta_model: Model
    cache: CompileCache
    key: str
    """This compile's key in the cache (module, data, metric, models, options, seed)."""
    rng: random.Random
    budget: Budget
    progress: Callable[[CompileProgress], None] | None
    archive: ModuleArchive
    minibatch: int = 0
    rollouts: int = 0
    model_calls: int = 0
    cost_usd: float = 0.0
    replayed: int = 0
    phase: str = "start"
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict[str, list[dict[str, Any]]])
    """Dev results of every variant in the archive, in dev order, by module id."""
    done: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Every rollout of this run by item, so a screened variant's dev evaluation reuses its minibatch."""
    rejected: set[str] = field(default_factory=set[str])
    """Module ids screened out; they are not tried again."""

    def report(self) -> None:
        """Send a ``CompileProgress`` to the progress callback, if there is one."""
        if self.progress is None:
            return
        best = self.archive.best.phenotype.score if self.archive.points else None
        self.progress(
            CompileProgress(
                self.phase,
                len(self.archive.points),
                self.rollouts,
                self.budget.rollouts,
                self.cost_usd,
                best,
                self.replayed,
                self.model_calls,
                len(self.rejected),
            )
        )

    def can_afford(self, rollouts: int) -> bool:
        """Whether ``rollouts`` more fit the rollout budget (and the USD budget is not spent)."""
        most, usd = self.budget.rollouts, self.budget.budget_usd
        over_rollouts = most is not None and self.rollouts + rollouts > most
        over_usd = usd is not None and self.cost_usd >= usd
        return not (over_rollouts or over_usd)

    def charge(self, record: Mapping[str, Any], replayed: bool) -> None:
        """Count one finished rollout or proposal: its model calls and cost, and whether it was replayed."""
        self.rollouts += 1
        self.model_calls += int(record.get("calls", 1))
        self.cost_usd += float(record.get("cost_usd", 0.0))
        self.replayed += int(replayed)

    async def rollout(self, module: Module, example: Example, item: str, where: str) -> dict[str, Any]:
        """One call of ``module`` on ``example``, scored; from the cache when already done."""
        if item in self.done:  # already run (and paid for) in this run, e.g. on a screening minibatch
            return self.done[item]
        cached = self.cache.get(self.key, item)
        if cached is not None:
            self.charge(cached, replayed=True)
            self.done[item] = dict(cached)
            return self.done[item]
        inputs = {f.name: example[f.name] for f in module.signature.input_fields()}
        try:
            prediction = await module.acall(model=self.model, **inputs)
        except OutputValidationError as exc:  # a wrong answer: scored 0, but paid for
            record: dict[str, Any] = {
                "score": 0.0,
                "output": None,
                "error": str(exc),
                "latency_ms": exc.latency_ms,
                "cost_usd": exc.cost_usd,
                "tokens": exc.input_tokens + exc.output_tokens,
                "calls": exc.calls,
            }
        else:
            output = prediction.to_dict()
            score = score_prediction(self.metric_name, self.metric, example, output, where)
            stats = prediction.stats
            record = {
                "score": score,
                "output": output,
                "error": None,
                "latency_ms": stats.latency_ms,
                "cost_usd": stats.cost_usd,
                "tokens": stats.tokens,
                "calls": 1 + stats.retries,
            }
        self.cache.put(self.key, item, record)
        self.charge(record, replayed=False)
        self.done[item] = record
        return record

    async def dev_rollout(self, module: Module, dev: Sequence[Example], i: int) -> dict[str, Any]:
        """``rollout`` of ``module`` on dev example ``i``, under the item screening and evaluation share."""
        return await self.rollout(module, dev[i], _dev_item(module, i), f"dev example {i}")

    async def evaluate(
        self,
        module: Module,
        dev: Sequence[Example],
        parent: str | None,
        operator: str,
        reference: str | None = None,
        focus: Sequence[int] = (),
    ) -> Point | None:
        """Score ``module`` on the dev set and add it to the archive (``None`` if already there or screened out).

        With a ``reference`` (the id of a variant in the archive), ``module`` must first pass
        ``screen`` against it on a minibatch that starts with the dev indices in ``focus``.
        """
        if module.id in self.results or module.id in self.rejected:
            return None
        if reference is not None and not await self.screen(module, dev, reference, focus):
            self.rejected.add(module.id)
            self.report()
            return None
        remaining = sum(_dev_item(module, i) not in self.done for i in range(len(dev)))
        if not self.can_afford(remaining):
            raise BudgetExhausted
        results = [await self.dev_rollout(module, dev, i) for i in range(len(dev))]
        self.results[module.id] = [{**r, "example": dict(ex)} for r, ex in zip(results, dev, strict=True)]
        point = Point(module, Phenotype.measure(results), parent=parent, operator=operator)
        self.archive.add(point)
        self.report()
        return point

    async def screen(self, module: Module, dev: Sequence[Example], reference: str, focus: Sequence[int]) -> bool:
        """Whether ``module`` earns a dev evaluation: better than ``reference`` on a minibatch, or as good and cheaper.

        The minibatch is ``focus`` (e.g. the failures a reflection read), then the reference's other
        failures up to half of it, then its successes (to catch a variant that breaks what worked).
        Screening is off when the minibatch would be the whole dev set.
        """
        size = self.minibatch
        if size <= 0 or size >= len(dev):
            return True
        known = self.results[reference]
        failed = [i for i, r in enumerate(known) if r["score"] < 1.0 and i not in focus]
        passed = [i for i, r in enumerate(known) if r["score"] >= 1.0 and i not in focus]
        self.rng.shuffle(failed)
        self.rng.shuffle(passed)
        wanted = max(0, (size + 1) // 2 - len(focus))
        picked = [*focus, *failed[:wanted], *passed, *failed[wanted:]][:size]
        if not self.can_afford(len(picked)):
            raise BudgetExhausted
        tried = [await self.dev_rollout(module, dev, i) for i in picked]
        reference_tried = [known[i] for i in picked]
        score, before = _total(tried, "score"), _total(reference_tried, "score")
        tokens, tokens_before = _total(tried, "tokens"), _total(reference_tried, "tokens")
        return score > before or (score == before and tokens <= 0.9 * tokens_before)

    async def proposal(self, module: Module, failures: str, item: str) -> str | None:
        """New instructions from the meta model (cached like a rollout)."""
        cached = self.cache.get(self.key, item)
        if cached is not None:
            self.charge(cached, replayed=True)
            return cached["instructions"]  # type: ignore[no-any-return]
        if not self.can_afford(1):
            raise BudgetExhausted
        try:
            text, stats = await propose(module, failures, model=self.meta_model)
        except OutputValidationError:
            text, cost = None, 0.0
        else:
            cost = stats.cost_usd
        record = {"instructions": text, "cost_usd": cost, "calls": 1}
        self.cache.put(self.key, item, record)
        self.charge(record, replayed=False)
        return text


def _dev_item(module: Module, i: int) -> str:
    """The compile-cache item of ``module``'s rollout on dev example ``i`` (screening and evaluation share it)."""
    return f"eval:{module.id}:{i}"


def _total(records: Sequence[Mapping[str, Any]], key: str) -> float:
    return float(sum(r[key] for r in records))
