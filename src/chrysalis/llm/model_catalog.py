"""What each model is good at, how fast and how dear it is: the catalogue model choice reads.

Seed 001 finds models in three places, and so does ``Catalog.load``, later ones winning:

1. the built-in catalogue, ``default-models.json`` beside this file (capabilities, speed, cost tier,
   strength and context window of the models users are likely to name);
2. the models a provider lists at its OpenAI-compatible ``GET /models`` (``discover``), which
   the built-in file may not know; those get a card guessed from their name (``guess_card``);
3. ``$CHRYSALIS_HOME/models.json``, the user's overrides and additions, in the built-in file's shape.

A card is coarse on purpose: ``speed`` and ``cost_tier`` are tiers, ``strength`` is a rank from 1
to 5. What a model actually achieves on a kind of task is learned, per task type, in the eval store
(``chrysalis.llm.routing``); the card only says where to start.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from chrysalis.errors import ConfigError, ModelError
from chrysalis.llm.pricing import price_per_million

__all__ = [
    "CAPABILITIES",
    "COST_TIERS",
    "SPEEDS",
    "TIER_USD",
    "Catalog",
    "ModelCard",
    "discover",
    "guess_card",
]

Speed = Literal["fast", "medium", "slow"]
CostTier = Literal["free", "low", "medium", "high"]
SPEEDS: tuple[Speed, ...] = ("slow", "medium", "fast")
COST_TIERS: tuple[CostTier, ...] = ("free", "low", "medium", "high")
TIER_USD: dict[str, float] = {"free": 0.0, "low": 0.5, "medium": 4.0, "high": 30.0}
"""A nominal blended USD per million tokens per cost tier, for ranking models whose real price is unknown."""
CAPABILITIES = ("coding", "tools", "reasoning", "long_context", "vision")
"""What a card may say a model can do; model choice filters on these."""
USER_FILE = "models.json"
_EXAMPLE = (
    '{"models": {"openai:gpt-4o-mini": {"capabilities": ["coding", "tools"], "speed": "fast", '
    '"cost_tier": "low", "strength": 3, "context": 128000}}}'
)


@dataclass(frozen=True)
class ModelCard:
    """One model's static profile."""

    model: str
    """``provider:name``, as ``--model`` takes it."""
    capabilities: frozenset[str]
    speed: Speed
    cost_tier: CostTier
    strength: int
    """1 (weakest) to 5: what a refine step picks by, and what ``accurate`` priorities favour."""
    context: int
    """The context window in tokens."""
    source: str
    """Where the card came from: ``built-in``, ``models.json``, ``discovered`` or ``guessed``."""

    @property
    def stated(self) -> bool:
        """True when a catalogue file says this (built-in or ``models.json``), not a guess from the name."""
        return self.source in ("built-in", "models.json")

    def to_json(self) -> dict[str, Any]:
        """The card as ``chrysalis models --json`` prints it."""
        return {
            "model": self.model,
            "capabilities": sorted(self.capabilities),
            "speed": self.speed,
            "cost_tier": self.cost_tier,
            "strength": self.strength,
            "context": self.context,
            "source": self.source,
        }


class Catalog:
    """Cards by model; a model it does not hold gets a guessed card, so every name can be ranked."""

    def __init__(self, cards: Iterable[ModelCard]) -> None:
        """Hold ``cards``; a later card for the same model replaces an earlier one."""
        self._cards: dict[str, ModelCard] = {}
        for card in cards:
            self._cards[card.model] = card

    @classmethod
    def load(cls, home: Path | None = None, *, discovered: Iterable[str] = ()) -> Catalog:
        """The built-in catalogue, then ``discovered`` names it lacks, then ``home/models.json``.

        Raises:
            ConfigError: ``models.json`` is not valid JSON or holds a bad entry; the message names
                the file, the model and the field, and shows the expected shape.
        """
        cards = dict(_builtin_cards())
        for model in discovered:
            if model not in cards:
                cards[model] = replace(guess_card(model), source="discovered")
        user = home / USER_FILE if home is not None else None
        if user is not None and user.is_file():
            cards |= _parse(_read_json(user), "models.json", str(user), cards)
        return cls(cards.values())

    def card(self, model: str) -> ModelCard:
        """The card of ``model``: the catalogue's, or one guessed from its name."""
        return self._cards.get(model) or guess_card(model)

    def __contains__(self, model: object) -> bool:
        return model in self._cards

    def __iter__(self) -> Iterator[ModelCard]:
        return iter(self._cards.values())

    def __len__(self) -> int:
        return len(self._cards)


@functools.cache
def _builtin_cards() -> dict[str, ModelCard]:
    """The built-in catalogue, parsed once per process (each run loads the catalogue; the file never changes)."""
    text = resources.files("chrysalis.llm").joinpath("default-models.json").read_text(encoding="utf-8")
    return _parse(json.loads(text), "built-in", "default-models.json", {})


def guess_card(model: str) -> ModelCard:
    """A card from the model's name alone: its size, family words (coder, mini, haiku, o3…) and its price.

    A guess is only a starting point: the eval store's record of the model overrides it in choice.
    """
    provider, sep, name = model.partition(":")
    if not sep:  # a bare name: a model on the --base-url server
        provider, name = "", model
    lower = name.lower()
    size = _billions(lower)
    small = (size is not None and size <= 4) or any(
        w in lower for w in ("mini", "nano", "small", "haiku", "flash", "lite", "tiny")
    )
    reasoning = bool(re.search(r"(^|[^a-z])(o[134]|r1|qwq)([^a-z0-9]|$)|reason|think", lower))
    capabilities = {"tools"}
    if any(w in lower for w in ("code", "coder", "codestral", "devstral")) or not small:
        capabilities.add("coding")
    if reasoning or (size is not None and size >= 30) or any(w in lower for w in ("opus", "sonnet", "gpt-4", "gpt-5")):
        capabilities.add("reasoning")
    if size is not None:
        strength = 1 if size < 1 else 2 if size <= 4 else 3 if size <= 32 else 4
    else:
        strength = 3 if small else 4
    speed: Speed = "slow" if reasoning else "fast" if small else "medium"
    return ModelCard(
        model,
        frozenset(capabilities),
        speed,
        _tier(model, provider),
        strength,
        32_768 if size is not None else 128_000,
        "guessed",
    )


def discover(base_url: str, api_key: str | None = None, *, provider: str = "", timeout: float = 5.0) -> list[str]:
    """The models an OpenAI-compatible server lists at ``GET {base_url}/models``, as ``provider:id``.

    ``provider`` is the prefix to give the ids (``openai``, ``ollama``…); empty keeps them bare, as
    ``--model`` takes them with ``--base-url``.

    Raises:
        ModelError: the server cannot be reached, refuses, or answers something that is not a model list.
    """
    import httpx

    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout)
        response.raise_for_status()
        data = response.json()["data"]
        ids = [str(item["id"]) for item in data]
    except httpx.HTTPStatusError as exc:
        raise ModelError(
            f"{url} answered {exc.response.status_code}: cannot list its models. Check --base-url and the API key."
        ) from exc
    except httpx.HTTPError as exc:
        raise ModelError(f"Cannot reach {url} to list its models ({exc}). Check --base-url.") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{url} did not answer with a model list ({{'data': [{{'id': ...}}]}}).") from exc
    return [f"{provider}:{model_id}" if provider else model_id for model_id in ids]


def _billions(name: str) -> float | None:
    """The parameter count in billions that a name like ``qwen2.5-coder-1.5b`` or ``llama3:70b`` states."""
    found = re.search(r"(?:^|[^a-z0-9.])(\d+(?:\.\d+)?)b(?:[^a-z]|$)", name)
    return float(found[1]) if found else None


def _tier(model: str, provider: str) -> CostTier:
    """The cost tier from the model's price per million tokens (3:1 input:output), ``free`` on this machine."""
    if provider in ("local", "ollama"):
        return "free"
    price = price_per_million(model)
    if price is None:
        return "medium"
    blended = 0.75 * price[0] + 0.25 * price[1]
    return "free" if blended == 0 else "low" if blended < 1.0 else "medium" if blended < 10.0 else "high"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}). "
            f"Expected a file like {_EXAMPLE}"
        ) from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from exc


def _parse(data: Any, source: str, where: str, base: Mapping[str, ModelCard]) -> dict[str, ModelCard]:
    """Cards from ``{"models": {id: fields}}``; fields a user entry leaves out come from ``base`` or a guess."""
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ConfigError(f'{where}: expected an object with a "models" object, like {_EXAMPLE}')
    cards: dict[str, ModelCard] = {}
    for model, fields in models.items():
        if not isinstance(fields, dict):
            raise ConfigError(f"{where}: the entry for {model!r} must be an object of fields, like {_EXAMPLE}")
        start = base.get(model) or guess_card(model)
        cards[model] = _card(model, fields, start, source, where)
    return cards


_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "capabilities": (
        lambda v: isinstance(v, list) and all(c in CAPABILITIES for c in v),
        f"a list of {', '.join(CAPABILITIES)}",
    ),
    "speed": (lambda v: v in SPEEDS, ", ".join(reversed(SPEEDS))),
    "cost_tier": (lambda v: v in COST_TIERS, ", ".join(COST_TIERS)),
    "strength": (lambda v: type(v) is int and 1 <= v <= 5, "a whole number from 1 to 5"),
    "context": (lambda v: type(v) is int and v > 0, "a positive number of tokens"),
}
"""Each field a card file may set: a check of its value, and what is allowed (for the error)."""


def _card(model: str, fields: Mapping[str, Any], start: ModelCard, source: str, where: str) -> ModelCard:
    """``start`` with ``fields`` applied, each checked; the error names the file, the model and the field."""
    unknown = set(fields) - set(_FIELDS)
    if unknown:
        raise ConfigError(
            f"{where}: model {model!r} has unknown field(s) {', '.join(sorted(unknown))}. "
            f"Allowed: {', '.join(_FIELDS)}."
        )
    for field, value in fields.items():
        valid, allowed = _FIELDS[field]
        if not valid(value):
            raise ConfigError(f"{where}: model {model!r} has a bad {field!r}: {value!r}. Allowed: {allowed}.")
    given = dict(fields)
    if "capabilities" in given:
        given["capabilities"] = frozenset(given["capabilities"])
    return replace(start, source=source, **given)
