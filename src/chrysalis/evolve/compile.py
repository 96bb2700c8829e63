"""compile(): make a module better on a trainset, keeping a MAP-Elites archive of its variants.

The table of contents (seed 000's ``compile!``, with GEPA's reflection):

1. split the trainset into train (demo source) and dev (where variants are scored), and score the
   base module on dev first, so any accepted budget measures it;
2. bootstrap few-shot demos: run the module on train examples, keep the ones it gets right;
3. seed the archive: base instructions with demos, the other strategy, the seed's instruction
   mutations, and instructions the meta model generates;
4. MAP-Elites: each iteration picks a random elite as parent and makes children (reflection on its
   failures, new demos, another strategy, a mutation), scores them, and adds them to the archive;
5. save the archive (versioned, in SQLite) and return a ``CompiledModule`` that selects by priority.

Screening (GEPA's minibatch acceptance): every variant after the demos seed is first run on a
minibatch of dev examples, half of them ones its reference (the parent) got wrong. Only a variant
that scores higher there, or the same with at least 10% fewer tokens (a candidate for the cheap
bins), is run on the rest of the dev set and enters the archive. A rejected variant costs the
minibatch instead of the dev set, so a budget buys several times more attempts; an accepted one
costs no more than before, because its minibatch rollouts are part of its dev evaluation.

Budgets are in rollouts (one run of a variant on one example, or one proposal) and in USD; the
loop stops before a variant it cannot afford. Everything random comes from ``random.Random(seed)``, and every finished
rollout is recorded under the compile's key in the compile cache, so rerunning an interrupted
compile replays what was done (no model calls) and continues where it stopped.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.errors import OutputValidationError
from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point
from chrysalis.evolve.metrics import MetricFn, resolve_metric, score_prediction
from chrysalis.evolve.module import Module, Prediction, Strategy
from chrysalis.evolve.predict import model_id, resolve_model
from chrysalis.evolve.reflect import DEFAULT_MUTATIONS, describe_failures, propose
from chrysalis.evolve.selection import Choice, select

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from chrysalis.stores import CompileCache

__all__ = ["CompileProgress", "CompiledModule", "acompile", "compile"]

Example = Mapping[str, Any]
OPERATORS = ("reflect", "demos", "strategy", "mutation")


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


class CompiledModule:
    """A compiled module: call it like the module, with ``priority=`` to pick a variant."""

    def __init__(self, archive: ModuleArchive, model: str | Model | None = None) -> None:
        """Wrap ``archive``; calls go to ``model`` unless a call names another."""
        self.archive = archive
        self.model = model

    @property
    def best(self) -> Module:
        """The best-scoring variant."""
        return self.archive.best.module

    def choose(self, priority: str | None = None) -> Choice:
        """The variant ``priority`` selects, with the reason."""
        return select(self.archive, priority)

    async def acall(
        self, *, priority: str | None = None, model: str | Model | None = None, **inputs: Any
    ) -> Prediction:
        """Run the variant that fits ``priority`` on ``inputs``."""
        module = self.choose(priority).point.module
        return await module.acall(model=model if model is not None else self.model, **inputs)

    def __call__(self, *, priority: str | None = None, model: str | Model | None = None, **inputs: Any) -> Prediction:
        """``acall`` for code that is not async."""
        return asyncio.run(self.acall(priority=priority, model=model, **inputs))

    @classmethod
    def load(cls, name: str, *, version: int | None = None, home: Path | None = None) -> CompiledModule:
        """A compiled module from a saved archive (``chrysalis compile`` saves one per run)."""
        return cls(ModuleArchive.load(name, version=version, home=home))

    def __repr__(self) -> str:
        return f"CompiledModule({self.archive!r}, best={self.archive.best.phenotype.score:.3f})"


@dataclass
class _Run:
    """The state of one compile: budget, cache, randomness and the archive being filled."""

    module: Module
    metric_name: str
    metric: MetricFn
    model: Model
    meta_model: Model
    cache: CompileCache
    key: str
    rng: random.Random
    rollout_budget: int | None
    usd_budget: float | None
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
        if self.progress is None:
            return
        best = self.archive.best.phenotype.score if self.archive.points else None
        self.progress(
            CompileProgress(
                self.phase,
                len(self.archive.points),
                self.rollouts,
                self.rollout_budget,
                self.cost_usd,
                best,
                self.replayed,
                self.model_calls,
                len(self.rejected),
            )
        )

    def can_afford(self, rollouts: int) -> bool:
        over_rollouts = self.rollout_budget is not None and self.rollouts + rollouts > self.rollout_budget
        over_usd = self.usd_budget is not None and self.cost_usd >= self.usd_budget
        return not (over_rollouts or over_usd)

    def charge(self, record: Mapping[str, Any], replayed: bool) -> None:
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
                "score": 0.0, "output": None, "error": str(exc), "latency_ms": exc.latency_ms,
                "cost_usd": exc.cost_usd, "tokens": exc.input_tokens + exc.output_tokens, "calls": exc.calls,
            }  # fmt: skip
        else:
            output = prediction.to_dict()
            score = score_prediction(self.metric_name, self.metric, example, output, where)
            stats = prediction.stats
            record = {
                "score": score, "output": output, "error": None, "latency_ms": stats.latency_ms,
                "cost_usd": stats.cost_usd, "tokens": stats.tokens, "calls": 1 + stats.retries,
            }  # fmt: skip
        self.cache.put(self.key, item, record)
        self.charge(record, replayed=False)
        self.done[item] = record
        return record

    async def dev_rollout(self, module: Module, dev: Sequence[Example], i: int) -> dict[str, Any]:
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


def compile(
    module: Module,
    trainset: Sequence[Example],
    metric: str | MetricFn = "exact",
    **options: Any,
) -> CompiledModule:
    """Compile ``module`` on ``trainset`` (see ``acompile`` for the options)."""
    return asyncio.run(acompile(module, trainset, metric, **options))


async def acompile(
    module: Module,
    trainset: Sequence[Example],
    metric: str | MetricFn = "exact",
    *,
    devset: Sequence[Example] | None = None,
    model: str | Model | None = None,
    meta_model: str | Model | None = None,
    k_demos: int = 3,
    iterations: int = 3,
    children: int = 3,
    rollouts: int | None = None,
    budget_usd: float | None = None,
    seed: int = 0,
    mutations: Sequence[str] = DEFAULT_MUTATIONS,
    generated: int = 1,
    minibatch: int = 5,
    name: str | None = None,
    home: Path | None = None,
    save: bool = True,
    progress: Callable[[CompileProgress], None] | None = None,
) -> CompiledModule:
    """Compile ``module``: bootstrap demos, mutate instructions, run MAP-Elites, save the archive.

    Args:
        module: The module to improve (``Predict(...)`` or ``ChainOfThought(...)``).
        trainset: Examples as dicts with every input and output field of the signature.
        metric: ``exact``, ``f1``, ``json``, or ``metric(example, prediction) -> float``.
        devset: Where variants are scored; without it, half of a shuffled trainset (all of it when
            there are fewer than 4 examples).
        model: The model the module runs on (the module's own, ``configure``'s, or the default).
        meta_model: The model that proposes instructions; the same as ``model`` by default.
        k_demos: Few-shot demos per variant.
        iterations: MAP-Elites iterations after the seed population.
        children: Children per iteration.
        rollouts: Most rollouts in all: runs of a variant on one example (a validation retry is part
            of its rollout) and meta-model proposals; no limit by default. ``model_calls`` in the
            archive's ``meta`` and in progress reports counts the requests themselves.
        budget_usd: Most USD to spend; no limit by default.
        seed: Seeds every random choice; the same seed and inputs give the same compile.
        mutations: Instruction mutations appended to the base instructions in the seed population.
        generated: Instructions the meta model writes from scratch for the seed population.
        minibatch: Dev examples a new variant is screened on before the whole dev set (see the
            module docstring); 0, or a dev set no bigger, scores every variant on all of dev.
        name: The archive's name in the store (the signature's class name by default).
        home: ``$CHRYSALIS_HOME`` (the store and the compile cache live there).
        save: Save the archive as the next version of ``name``.
        progress: Called after every measured variant.

    Raises:
        ValueError: empty trainset, an example missing a field, bad metric name, a budget below one
            evaluation of the dev set; each message says what is allowed.
        MetricError: the metric raised; finished steps are kept, so rerunning resumes.
        ModelError: the provider failed; rerunning resumes.
    """
    from chrysalis.config import chrysalis_home
    from chrysalis.stores import Stores

    trainset = _checked(module, trainset, "trainset")
    if devset is not None:
        devset = _checked(module, devset, "devset")
    metric_name, metric_fn = resolve_metric(metric, [f.name for f in module.signature.output_fields()])
    train, dev = _split(trainset, devset, seed)
    if rollouts is not None and rollouts < len(dev):
        raise ValueError(
            f"rollouts={rollouts} is less than one evaluation of the dev set ({len(dev)} examples); "
            f"raise it or pass a smaller devset"
        )
    for label, value in (
        ("k_demos", k_demos),
        ("iterations", iterations),
        ("children", children),
        ("generated", generated),
        ("minibatch", minibatch),
    ):
        if value < 0:
            raise ValueError(f"{label} must be 0 or more, got {value}")
    chosen = resolve_model(model if model is not None else module.model)
    meta = resolve_model(meta_model) if meta_model is not None else chosen
    config = {"k": k_demos, "it": iterations, "ch": children, "mut": list(mutations), "gen": generated, "mb": minibatch}
    key = _compile_key(module, trainset, devset, metric_name, model_id(chosen), model_id(meta), config, seed)
    archive = ModuleArchive(name or module.signature.__name__, module.signature)
    with Stores.open(home or chrysalis_home()) as stores:
        run = _Run(
            module, metric_name, metric_fn, chosen, meta, stores.compile_cache, key, random.Random(seed),
            rollouts, budget_usd, progress, archive, minibatch,
        )  # fmt: skip
        try:
            await run.evaluate(module, dev, None, "seed")  # first, so any accepted budget measures the base
            pool = await _bootstrap(run, train, k_demos)
            await _seed_population(run, dev, pool, k_demos, mutations, generated)
            for i in range(iterations):
                run.phase = f"iteration {i + 1}"
                for j in range(children):
                    await _child(run, dev, pool, k_demos, mutations, f"{i}.{j}")
        except BudgetExhausted:
            pass
        run.phase = "done"
        run.report()
        archive.meta = {
            "model": model_id(chosen), "meta_model": model_id(meta), "metric": metric_name, "seed": seed,
            "rollouts": run.rollouts, "model_calls": run.model_calls, "replayed": run.replayed,
            "cost_usd": run.cost_usd, "train": len(train), "dev": len(dev), "compile_key": key, "base_id": module.id,
            "minibatch": minibatch, "screened_out": len(run.rejected),
        }  # fmt: skip
        if save and archive.points:
            archive.version = stores.archives.save(archive.name, archive.to_json())
    return CompiledModule(archive, model=model)


def _checked(module: Module, rows: Sequence[Example], label: str) -> list[Example]:
    """The examples with each field checked against the signature's type (and coerced: ``"4"`` → 4).

    Raises:
        ValueError: no examples, a row that is not a dict, a missing field, or a value of the wrong
            type; the message names the row and the field.
    """
    import pydantic

    names = [f.name for f in module.signature.fields]
    if not rows:
        raise ValueError(f"{label} is empty; give at least one example: a dict with the fields {names}")
    model = module.signature.example_model()
    checked: list[Example] = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(f"{label}[{i}] is {type(row).__name__}, not a dict of fields {names}")
        missing = [n for n in names if n not in row]
        if missing:
            raise ValueError(f"{label}[{i}] lacks the field(s) {missing}; every example needs {names}")
        try:
            values = model.model_validate({n: row[n] for n in names}).model_dump()
        except pydantic.ValidationError as exc:
            error = exc.errors()[0]
            field = error["loc"][0] if error["loc"] else "?"
            kind = next(f.type_text for f in module.signature.fields if f.name == field)
            raise ValueError(
                f"{label}[{i}] field {field!r} is {row.get(str(field))!r}, which is not a {kind}: {error['msg']}"
            ) from exc
        checked.append({**row, **values})
    return checked


def _split(
    trainset: Sequence[Example], devset: Sequence[Example] | None, seed: int
) -> tuple[list[Example], list[Example]]:
    rows = list(trainset)
    if devset is not None:
        return rows, list(devset)
    if len(rows) < 4:
        return rows, rows
    random.Random(seed).shuffle(rows)
    half = len(rows) // 2
    return rows[:half], rows[half:]


def _compile_key(
    module: Module, trainset: Sequence[Example], devset: Sequence[Example] | None, metric: str,
    model: str, meta: str, config: dict[str, Any], seed: int,
) -> str:  # fmt: skip
    blob = json.dumps(
        [module.to_spec(), list(trainset), list(devset or []), metric, model, meta, config, seed],
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


async def _bootstrap(run: _Run, train: Sequence[Example], k: int) -> list[dict[str, Any]]:
    """Demos from successful runs of the base module on train examples, then labeled ones to fill."""
    run.phase = "bootstrap"
    if k == 0:
        return []
    order = list(range(len(train)))
    run.rng.shuffle(order)
    fields = [f.name for f in run.module.signature.fields]
    demos: list[dict[str, Any]] = []
    for i in order[: 3 * k]:
        if len(demos) >= k or not run.can_afford(1):
            break
        record = await run.rollout(run.module, train[i], f"boot:{i}", f"train example {i}")
        if record["score"] >= 1.0 and record["output"] is not None:
            demos.append({**{n: train[i][n] for n in fields}, **record["output"]})
    used = {json.dumps(d, sort_keys=True, default=repr) for d in demos}
    labeled = [{n: train[i][n] for n in fields} for i in order]
    pool = demos + [d for d in labeled if json.dumps(d, sort_keys=True, default=repr) not in used]
    run.report()
    return pool


async def _seed_population(
    run: _Run, dev: Sequence[Example], pool: list[dict[str, Any]], k: int, mutations: Sequence[str], generated: int
) -> None:
    run.phase = "seed"
    base = run.module
    with_demos = base.replace(demos=pool[:k])
    await run.evaluate(with_demos, dev, base.id, "seed: demos")  # the base itself was measured first, in acompile
    reference = with_demos.id if with_demos.id in run.results else base.id
    seeds: list[tuple[Module, str]] = [(with_demos.replace(strategy=_other_strategy(base)), "seed: strategy")]
    seeds += [(with_demos.replace(instructions=f"{base.instructions} {m}"), f"mutation: {m}") for m in mutations]
    for module, operator in seeds:
        await run.evaluate(module, dev, reference, operator, reference=reference)
    for g in range(generated):
        text = await run.proposal(base, "", f"generate:{g}")
        if text:
            await run.evaluate(with_demos.replace(instructions=text), dev, reference, "generated", reference=reference)


def _other_strategy(module: Module) -> Strategy:
    return "chain-of-thought" if module.strategy == "predict" else "predict"


async def _child(
    run: _Run, dev: Sequence[Example], pool: list[dict[str, Any]], k: int, mutations: Sequence[str], tag: str
) -> None:
    # Parents come from the cost × verbosity elites: latency is wall-clock noise, and letting it pick
    # parents would make the same seed give different compiles.
    elites = sorted(run.archive.elites(axes=(0, 2)).values(), key=lambda p: p.id)
    parent = run.rng.choice(elites)
    operator = run.rng.choice(OPERATORS)
    module = parent.module
    focus: list[int] = []
    if operator == "reflect":
        results = run.results[parent.id]
        failures = [i for i, r in enumerate(results) if r["score"] < 1.0]
        focus = run.rng.sample(failures, min(3, len(failures)))
        fields = run.module.signature
        text = describe_failures(
            [results[i] for i in focus],
            [f.name for f in fields.input_fields()],
            [f.name for f in fields.output_fields()],
        )
        proposal = await run.proposal(module, text, f"reflect:{tag}:{parent.id}")
        child = module.replace(instructions=proposal) if proposal else None
    elif operator == "demos":
        count = max(0, min(len(pool), k + run.rng.choice((-1, 0, 1))))
        child = module.replace(demos=run.rng.sample(pool, count))
    elif operator == "strategy":
        child = module.replace(strategy=_other_strategy(module))
    else:
        child = module.replace(
            instructions=f"{run.module.instructions} {run.rng.choice(list(mutations) or [''])}".strip()
        )
    if child is not None:
        await run.evaluate(child, dev, parent.id, operator, reference=parent.id, focus=focus)
