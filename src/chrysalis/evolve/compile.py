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

What to search and how much to spend is one frozen ``CompileOptions`` (``options.py``);
``compile(qa, rows, rollouts=150, seed=0)`` builds it from the keywords. The budget, the cache and
the screening live in ``CompileRun`` (``rollouts.py``); this module is the table of contents.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.evolve.archive import ModuleArchive
from chrysalis.evolve.metrics import MetricFn, resolve_metric
from chrysalis.evolve.module import Module, Prediction, Strategy
from chrysalis.evolve.options import CompileOptions, OptionError, Search
from chrysalis.evolve.predict import model_id, resolve_model
from chrysalis.evolve.reflect import describe_failures
from chrysalis.evolve.rollouts import BudgetExhausted, CompileProgress, CompileRun, Example
from chrysalis.evolve.selection import Choice, select

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["CompileOptions", "CompileProgress", "CompiledModule", "acompile", "compile"]

OPERATORS = ("reflect", "demos", "strategy", "mutation")


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


def compile(
    module: Module,
    trainset: Sequence[Example],
    metric: str | MetricFn = "exact",
    options: CompileOptions | None = None,
    *,
    devset: Sequence[Example] | None = None,
    model: str | Model | None = None,
    meta_model: str | Model | None = None,
    home: Path | None = None,
    progress: Callable[[CompileProgress], None] | None = None,
    **knobs: Any,
) -> CompiledModule:
    """Compile ``module``: bootstrap demos, mutate instructions, run MAP-Elites, save the archive (``acompile``: async).

    Args:
        module: The module to improve (``Predict(...)`` or ``ChainOfThought(...)``).
        trainset: Examples as dicts with every input and output field of the signature.
        metric: ``exact``, ``f1``, ``json``, or ``metric(example, prediction) -> float``.
        options: What to search and how much to spend; ``CompileOptions()`` by default.
        devset: Where variants are scored; by default half of a shuffled trainset (all of it under 4 examples).
        model: The model the module runs on (the module's own, or the settings' ``model``).
        meta_model: The model that proposes instructions; ``model`` by default.
        home: ``$CHRYSALIS_HOME`` (the store and the compile cache live there).
        progress: Called after every measured variant.
        **knobs: Options by name over ``options`` (``rollouts=150, seed=0``; ``CompileOptions.names()``).

    Raises:
        TypeError: an unknown option name; the message lists the allowed ones.
        ValueError: an empty trainset, an example missing a field, a bad metric name, an option out of
            range (``OptionError``); each message says what is allowed.
        MetricError: the metric raised; finished steps are kept, so rerunning resumes.
        ModelError: the provider failed; rerunning resumes.
    """
    return asyncio.run(
        acompile(
            module,
            trainset,
            metric,
            options,
            devset=devset,
            model=model,
            meta_model=meta_model,
            home=home,
            progress=progress,
            **knobs,
        )
    )


async def acompile(
    module: Module,
    trainset: Sequence[Example],
    metric: str | MetricFn = "exact",
    options: CompileOptions | None = None,
    *,
    devset: Sequence[Example] | None = None,
    model: str | Model | None = None,
    meta_model: str | Model | None = None,
    home: Path | None = None,
    progress: Callable[[CompileProgress], None] | None = None,
    **knobs: Any,
) -> CompiledModule:
    """``compile`` for async code, with the same arguments."""
    from chrysalis.config import chrysalis_home
    from chrysalis.stores import Stores

    options = (options if options is not None else CompileOptions()).replace(**knobs)
    data = _prepare(module, trainset, devset, metric, options)
    chosen = resolve_model(model if model is not None else module.model)
    meta = resolve_model(meta_model) if meta_model is not None else chosen
    key = _compile_key(module, data, model_id(chosen), model_id(meta), options.search)
    archive = ModuleArchive(options.name or module.signature.__name__, module.signature)
    with Stores.open(home or chrysalis_home()) as stores:
        run = CompileRun(
            module=module,
            metric_name=data.metric_name,
            metric=data.metric,
            model=chosen,
            meta_model=meta,
            cache=stores.compile_cache,
            key=key,
            rng=random.Random(options.search.seed),
            budget=options.budget,
            progress=progress,
            archive=archive,
            minibatch=options.search.minibatch,
        )
        await _search(run, data, options.search)
        archive.meta = _meta(run, data, options.search.seed)
        if options.save and archive.points:
            archive.version = stores.archives.save(archive.name, archive.to_json())
    return CompiledModule(archive, model=model)


@dataclass(frozen=True)
class _Data:
    """One compile's checked examples, its metric, and its train/dev split."""

    trainset: list[Example]
    devset: list[Example] | None
    metric_name: str
    metric: MetricFn
    train: list[Example]
    dev: list[Example]


def _prepare(
    module: Module,
    trainset: Sequence[Example],
    devset: Sequence[Example] | None,
    metric: str | MetricFn,
    options: CompileOptions,
) -> _Data:
    """Check the examples and the metric, split the trainset, and check that the budget measures the base module."""
    rows = _checked(module, trainset, "trainset")
    dev_rows = _checked(module, devset, "devset") if devset is not None else None
    metric_name, metric_fn = resolve_metric(metric, [f.name for f in module.signature.output_fields()])
    train, dev = _split(rows, dev_rows, options.search.seed)
    most = options.budget.rollouts
    if most is not None and most < len(dev):
        needed = f"at least {len(dev)} to evaluate the base module once on the {len(dev)} dev examples"
        raise OptionError("rollouts", most, f"{needed} (or use a smaller dev set)")
    return _Data(rows, dev_rows, metric_name, metric_fn, train, dev)


async def _search(run: CompileRun, data: _Data, search: Search) -> None:
    """The base module, bootstrap, seed population and MAP-Elites, until done or out of budget."""
    try:
        await run.evaluate(run.module, data.dev, None, "seed")  # first, so any accepted budget measures the base
        pool = await _bootstrap(run, data.train, search.k_demos)
        await _seed_population(run, data.dev, pool, search)
        for i in range(search.iterations):
            run.phase = f"iteration {i + 1}"
            for j in range(search.children):
                await _child(run, data.dev, pool, search, f"{i}.{j}")
    except BudgetExhausted:
        pass
    run.phase = "done"
    run.report()


def _meta(run: CompileRun, data: _Data, seed: int) -> dict[str, Any]:
    """What the archive records about the compile that made it."""
    return {
        "model": model_id(run.model),
        "meta_model": model_id(run.meta_model),
        "metric": data.metric_name,
        "seed": seed,
        "rollouts": run.rollouts,
        "model_calls": run.model_calls,
        "replayed": run.replayed,
        "cost_usd": run.cost_usd,
        "train": len(data.train),
        "dev": len(data.dev),
        "compile_key": run.key,
        "base_id": run.module.id,
        "minibatch": run.minibatch,
        "screened_out": len(run.rejected),
    }


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


def _compile_key(module: Module, data: _Data, model: str, meta: str, search: Search) -> str:
    """The compile cache key: module, data, metric, models, search shape and seed (not the budget).

    Its layout predates ``CompileOptions``; it is kept, so caches written before resume.
    """
    config = {
        "k": search.k_demos,
        "it": search.iterations,
        "ch": search.children,
        "mut": list(search.mutations),
        "gen": search.generated,
        "mb": search.minibatch,
    }
    blob = json.dumps(
        [module.to_spec(), data.trainset, data.devset or [], data.metric_name, model, meta, config, search.seed],
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


async def _bootstrap(run: CompileRun, train: Sequence[Example], k: int) -> list[dict[str, Any]]:
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


async def _seed_population(run: CompileRun, dev: Sequence[Example], pool: list[dict[str, Any]], search: Search) -> None:
    run.phase = "seed"
    base = run.module
    with_demos = base.replace(demos=pool[: search.k_demos])
    await run.evaluate(with_demos, dev, base.id, "seed: demos")  # the base itself was measured first, in _search
    reference = with_demos.id if with_demos.id in run.results else base.id
    seeds: list[tuple[Module, str]] = [(with_demos.replace(strategy=_other_strategy(base)), "seed: strategy")]
    seeds += [(with_demos.replace(instructions=f"{base.instructions} {m}"), f"mutation: {m}") for m in search.mutations]
    for module, operator in seeds:
        await run.evaluate(module, dev, reference, operator, reference=reference)
    for g in range(search.generated):
        text = await run.proposal(base, "", f"generate:{g}")
        if text:
            await run.evaluate(with_demos.replace(instructions=text), dev, reference, "generated", reference=reference)


def _other_strategy(module: Module) -> Strategy:
    return "chain-of-thought" if module.strategy == "predict" else "predict"


async def _child(run: CompileRun, dev: Sequence[Example], pool: list[dict[str, Any]], search: Search, tag: str) -> None:
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
        count = max(0, min(len(pool), search.k_demos + run.rng.choice((-1, 0, 1))))
        child = module.replace(demos=run.rng.sample(pool, count))
    elif operator == "strategy":
        child = module.replace(strategy=_other_strategy(module))
    else:
        child = module.replace(
            instructions=f"{run.module.instructions} {run.rng.choice(list(search.mutations) or [''])}".strip()
        )
    if child is not None:
        await run.evaluate(child, dev, parent.id, operator, reference=parent.id, focus=focus)
