"""Which model to use for a kind of task: Thompson sampling over each model's record, cheaper models first.

``--model auto`` asks ``ModelRouter.choose``. For each candidate model it forms a Beta posterior on
"a run of this task type succeeds" from the eval store's rows, draws one sample from each, and
picks the highest draw. A model with a strong record is picked most of the time; one with little
evidence is still tried now and then, so every candidate's record keeps growing (exploration
without a tuning knob), and each run's outcome feeds the next choice.

The prior favours cheaper models. Before any evidence a candidate has ``Beta(alpha0, beta0)`` with
``alpha0 = 1 + w * c`` and ``beta0 = 1 + w * (1 - c)``, where ``w`` is ``PRIOR_WEIGHT`` and ``c``
in [0, 1] is the model's cheapness among the candidates: 1 for the cheapest, 0 for the dearest,
linear in ``log(1 + USD per million tokens)`` at a 3:1 input:output mix (``llm/pricing.py``; local
models cost 0; a model whose price is unknown counts as the dearest). With no data the cheapest
model is the likeliest pick; the prior weighs as much as ``w`` runs, so a few recorded outcomes
outweigh it; between equal records the cheaper model wins.

The priority moves the prior (``Preference``): the prior mean is a candidate's *fitness*, a
weighted mix of its cheapness, its speed and its strength (``llm/model_catalog.py``'s cards), each
scaled 0..1 among the candidates. ``cheap`` weighs cost, ``fast`` speed, ``accurate`` strength; the
default weighs cost alone, so fitness is cheapness. A task that needs a capability (``coding``)
is routed only among candidates whose card has it, unless none has.

Seed 001's draft→refine chain: ``ModelRouter.refiner`` names the strongest capable candidate that
is stronger than the one drafting; the session hands it the conversation when the draft's check fails.

``auto_candidates(settings)`` says which models ``auto`` chooses among: the ``auto_models`` config
key, or by default the local default model plus every remote provider whose API key is set.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from chrysalis.config import DEFAULT_MODEL, Settings
from chrysalis.errors import ConfigError, UsageError
from chrysalis.llm.local.catalog import get_local_model
from chrysalis.llm.local.weights import is_cached
from chrysalis.llm.model_catalog import SPEEDS, TIER_USD, Catalog, ModelCard
from chrysalis.llm.names import ModelName
from chrysalis.llm.pricing import price_per_million
from chrysalis.llm.providers import KEY_VARS
from chrysalis.stores.evals import EvalStore

__all__ = [
    "AUTO",
    "DEFAULT_REMOTE_MODELS",
    "PRIOR_WEIGHT",
    "ModelPosterior",
    "ModelRouter",
    "Preference",
    "RoutingChoice",
    "auto_candidates",
    "blended_price",
]

AUTO = "auto"
"""The ``model`` value that asks the router to choose."""
PRIOR_WEIGHT = 1.0
"""How many runs' worth of evidence the cost prior is worth."""
INPUT_SHARE = 0.75
"""The share of input tokens in the blended price (3:1 input:output, as agent runs are input-heavy)."""
DEFAULT_REMOTE_MODELS: dict[str, str] = {
    "openai": "openai:gpt-4o-mini",
    "anthropic": "anthropic:claude-3-5-haiku-latest",
    "openrouter": "openrouter:openai/gpt-4o-mini",
}
"""The model ``auto`` adds by default for each remote provider whose key is set."""


@dataclass(frozen=True)
class Preference:
    """How much a priority cares about a model's cost, speed and strength (the weights of its fitness)."""

    cost: float = 1.0
    speed: float = 0.0
    strength: float = 0.0

    def fitness(self, cheapness: float, speed: float, strength: float) -> float:
        """The weighted mean of the three 0..1 scores; 0.5 (neutral) when every weight is 0."""
        total = self.cost + self.speed + self.strength
        if total <= 0:
            return 0.5
        return (self.cost * cheapness + self.speed * speed + self.strength * strength) / total


@dataclass(frozen=True)
class ModelPosterior:
    """What the router believes about one model on one task type, and why."""

    model: str
    runs: int
    """Recorded runs of this task type on this model (all profiles)."""
    successes: int
    usd_per_million: float | None
    """Blended USD per million tokens (3:1 input:output); 0 for local models, ``None`` when unknown."""
    cheapness: float
    """0 (dearest candidate) to 1 (cheapest)."""
    fitness: float
    """0..1, how well the model's card fits the priority (``Preference``); sets the prior."""
    strength: int
    """The card's strength, 1..5 (``llm/model_catalog.py``)."""
    alpha: float
    """``1 + PRIOR_WEIGHT * fitness + successes``."""
    beta: float
    """``1 + PRIOR_WEIGHT * (1 - fitness) + failures``."""
    sample: float | None = None
    """The Thompson draw from ``Beta(alpha, beta)``, when this came from ``ModelRouter.choose``."""

    @property
    def mean(self) -> float:
        """The posterior mean success rate, ``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    def to_json(self) -> dict[str, Any]:
        """The numbers as one JSON object (for the ``start`` event), rounded to 4 places."""
        return {
            "model": self.model,
            "runs": self.runs,
            "successes": self.successes,
            "usd_per_million": None if self.usd_per_million is None else round(self.usd_per_million, 4),
            "alpha": round(self.alpha, 4),
            "beta": round(self.beta, 4),
            "fitness": round(self.fitness, 4),
            "mean": round(self.mean, 4),
            "sample": None if self.sample is None else round(self.sample, 4),
        }


@dataclass(frozen=True)
class RoutingChoice:
    """The model picked for one task type, with every candidate's posterior (and draw) to explain it."""

    task_type: str
    model: str
    posteriors: tuple[ModelPosterior, ...]
    need: frozenset[str] = frozenset()
    """The capabilities the task type needs."""
    dropped: tuple[str, ...] = ()
    """Candidates left out because their card lacks a needed capability."""

    def explain(self) -> str:
        """One line: the pick, each candidate's draw, mean and record, and who was left out for lack of a capability."""
        parts = [
            f"{p.model} drew {p.sample:.2f} (mean {p.mean:.2f}, {p.successes}/{p.runs} runs)"
            for p in sorted(self.posteriors, key=lambda p: -(p.sample or 0.0))
        ]
        line = f"auto picked {self.model} for {self.task_type!r} tasks: " + "; ".join(parts)
        if self.dropped:
            line += f"; left out (no {'/'.join(sorted(self.need))}): {', '.join(self.dropped)}"
        return line


class ModelRouter:
    """Chooses among candidate models per task type from the eval store's records."""

    def __init__(
        self,
        evals: EvalStore,
        *,
        prior_weight: float = PRIOR_WEIGHT,
        preference: Preference | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        """Read outcomes from ``evals``; ``prior_weight`` is how many runs the prior counts for.

        ``preference`` (the priority's weights; cost alone by default) and ``catalog`` (the cards;
        the built-in catalogue by default) set each candidate's fitness, the prior's mean.

        Raises:
            ValueError: ``prior_weight`` is negative.
        """
        if prior_weight < 0:
            raise ValueError(f"prior_weight must be >= 0, got {prior_weight}")
        self._evals = evals
        self.prior_weight = prior_weight
        self.preference = preference or Preference()
        self.catalog = catalog or Catalog.load()

    def capable(self, candidates: Sequence[str], need: Iterable[str] = ()) -> tuple[list[str], list[str]]:
        """``(kept, dropped)``: the candidates whose card has every ``need``ed capability; all when none has."""
        models, wanted = _unique(candidates), set(need)
        kept = [m for m in models if wanted <= self.catalog.card(m).capabilities]
        if not kept:
            return models, []
        return kept, [m for m in models if m not in kept]

    def posteriors(self, task_type: str, candidates: Sequence[str]) -> tuple[ModelPosterior, ...]:
        """Each candidate's Beta posterior for ``task_type``, in the candidates' order (duplicates dropped).

        Raises:
            ValueError: ``candidates`` is empty.
        """
        models = _unique(candidates)
        if not models:
            raise ValueError("ModelRouter needs at least one candidate model")
        records = {row.model: row for row in self._evals.by_model(task_type)}
        cards = {model: self.catalog.card(model) for model in models}
        prices = {model: _price_or_tier(model, cards[model]) for model in models}
        cheapness = _cheapness(prices)
        speed = _scaled({m: float(SPEEDS.index(c.speed)) for m, c in cards.items()})
        strength = _scaled({m: float(c.strength) for m, c in cards.items()})
        result: list[ModelPosterior] = []
        for model in models:
            record = records.get(model)
            runs, successes = (record.runs, record.successes) if record else (0, 0)
            fit = self.preference.fitness(cheapness[model], speed[model], strength[model])
            result.append(
                ModelPosterior(
                    model=model,
                    runs=runs,
                    successes=successes,
                    usd_per_million=prices[model],
                    cheapness=cheapness[model],
                    alpha=1.0 + self.prior_weight * fit + successes,
                    beta=1.0 + self.prior_weight * (1.0 - fit) + (runs - successes),
                    fitness=fit,
                    strength=cards[model].strength,
                )
            )
        return tuple(result)

    def choose(
        self,
        task_type: str,
        candidates: Sequence[str],
        rng: random.Random | None = None,
        *,
        need: Iterable[str] = (),
    ) -> RoutingChoice:
        """Thompson sampling among the capable candidates: draw once from each posterior, pick the highest.

        Pass ``rng=random.Random(seed)`` for a reproducible choice. Draws are made in the
        candidates' order, and an exact tie goes to the earlier candidate.
        """
        rng = rng or random.Random()
        kept, dropped = self.capable(candidates, need)
        drawn = tuple(replace(p, sample=rng.betavariate(p.alpha, p.beta)) for p in self.posteriors(task_type, kept))
        best = max(drawn, key=lambda p: p.sample or 0.0)
        return RoutingChoice(
            task_type=task_type, model=best.model, posteriors=drawn, need=frozenset(need), dropped=tuple(dropped)
        )

    def refiner(self, task_type: str, candidates: Sequence[str], draft: str, *, need: Iterable[str] = ()) -> str | None:
        """The model to refine ``draft``'s failed attempt: the strongest capable candidate stronger than it.

        Between equally strong candidates the better record (posterior mean) wins, then the cheaper.
        None when no capable candidate is stronger than the draft.
        """
        kept, _ = self.capable(candidates, need)
        floor = self.catalog.card(draft).strength
        stronger = [p for p in self.posteriors(task_type, kept) if p.strength > floor and p.model != draft]
        if not stronger:
            return None
        return max(stronger, key=lambda p: (p.strength, p.mean, p.cheapness)).model

    def preferred(self, task_type: str, candidates: Sequence[str]) -> ModelPosterior:
        """The candidate with the highest posterior mean (the cheaper one on a tie): the router's best guess."""
        return max(self.posteriors(task_type, candidates), key=lambda p: (p.mean, p.cheapness))


def blended_price(model: str) -> float | None:
    """USD per million tokens at a 3:1 input:output mix; 0 for local models, ``None`` when unknown."""
    price = price_per_million(model)
    if price is None:
        return None
    return INPUT_SHARE * price[0] + (1 - INPUT_SHARE) * price[1]


def _price_or_tier(model: str, card: ModelCard) -> float | None:
    """The blended price; for a model with no known price, its stated cost tier's nominal price (else unknown)."""
    price = blended_price(model)
    if price is None and card.stated:
        return TIER_USD[card.cost_tier]
    return price


def _cheapness(prices: Mapping[str, float | None]) -> dict[str, float]:
    """1 for the cheapest, 0 for the dearest, linear in log(1 + price); unknown prices count as dearest."""
    known = {model: math.log1p(price) for model, price in prices.items() if price is not None}
    has_unknown = len(known) < len(prices)
    low, high = min(known.values(), default=0.0), max(known.values(), default=0.0)
    result: dict[str, float] = {}
    for model in prices:
        if model not in known:
            result[model] = 0.0 if known else 0.5
        elif high > low:
            result[model] = (high - known[model]) / (high - low)
        else:
            result[model] = 1.0 if has_unknown else 0.5
    return result


def _scaled(values: Mapping[str, float]) -> dict[str, float]:
    """Min-max scaled to 0..1 among the candidates; 0.5 each when they are all alike."""
    low, high = min(values.values()), max(values.values())
    return {m: (v - low) / (high - low) if high > low else 0.5 for m, v in values.items()}


def _unique(models: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for model in models:
        if model not in seen:
            seen.append(model)
    return seen


_ALLOWED_CANDIDATES = (
    'a list of \'provider:name\' models, e.g. auto_models = ["local:qwen2.5-coder-1.5b", "openai:gpt-4o-mini"]'
)


def auto_candidates(settings: Settings, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The models ``model = "auto"`` chooses among, each checked as ``build_model`` would check it.

    ``auto_models`` when set; otherwise the local default model and the default model of every
    remote provider whose key is set (``DEFAULT_REMOTE_MODELS``). The local model is left out of the
    default only when a remote one is available and the local weights are not fetched yet.

    Raises:
        ConfigError: an ``auto_models`` entry is malformed, names an unknown provider or local
            model, or needs an API key that is not set; or ``base_url`` is set without
            ``auto_models`` (the server's model names cannot be guessed). The message names the
            key, where it was set, and what is allowed.
    """
    env = os.environ if environ is None else environ
    if settings.auto_models:
        source = settings.sources.get("auto_models", "auto_models")
        return tuple(_checked(model, settings.base_url, env, source) for model in settings.auto_models)
    if settings.base_url:
        raise ConfigError(
            f"model 'auto' with base_url {settings.base_url!r} needs 'auto_models': the names of the server's "
            f"models to choose among. Allowed: {_ALLOWED_CANDIDATES}."
        )
    remote = [model for provider, model in DEFAULT_REMOTE_MODELS.items() if env.get(KEY_VARS[provider], "").strip()]
    local_ready = is_cached(get_local_model(DEFAULT_MODEL), settings.home)
    return tuple(remote) if remote and not local_ready else (DEFAULT_MODEL, *remote)


def _checked(model: str, base_url: str | None, env: Mapping[str, str], source: str) -> str:
    try:
        name = ModelName.parse(model, base_url=base_url)
        if name.provider == "local":
            get_local_model(name.name)
    except UsageError as exc:
        raise ConfigError(
            f"{source}: bad value {model!r} in 'auto_models': {exc} Allowed: {_ALLOWED_CANDIDATES}."
        ) from exc
    var = KEY_VARS.get(name.provider)
    if var is not None and not env.get(var, "").strip():
        raise ConfigError(
            f"{source}: 'auto_models' lists {model!r}, whose provider needs {var}, which is not set. "
            f"Set {var}, or remove {model!r} from auto_models."
        )
    return model
