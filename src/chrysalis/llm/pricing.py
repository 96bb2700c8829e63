"""What a model request costs in USD, so ``--budget`` can stop a run and ``/cost`` can show real numbers.

Prices come from ``genai-prices`` (a pydantic-ai dependency with an offline snapshot of provider
price lists) when it knows the model, else from the small table below. Models on this machine
(``local:``, ``ollama:``) cost 0. A remote model found in neither is reported by ``is_priced`` as
unpriced, and costs 0.0 here: the agent should warn that a budget cannot be enforced for it rather
than guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from chrysalis.errors import ConfigError

__all__ = ["PRICES", "check_budget", "cost_usd", "is_priced", "price_per_million"]

Prices = Mapping[str, tuple[float, float]]
"""The user's own ``[prices]`` table: model (``provider:name`` or the bare name) -> USD per million (in, out)."""

# USD per million (input, output) tokens, from the providers' price pages. Longest prefix wins.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o1-mini": (1.10, 4.40),
    "o1": (15.00, 60.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-opus": (15.00, 75.00),
    "claude-opus-4": (15.00, 75.00),
}
_FREE_PROVIDERS = ("local", "ollama")
_GENAI_PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "openrouter": "openrouter"}


def cost_usd(model: str, input_tokens: int, output_tokens: int, prices: Prices | None = None) -> float:
    """The USD cost of ``input_tokens`` in and ``output_tokens`` out on ``model`` (``provider:name``).

    ``prices`` (the config's ``[prices]`` table) wins over every other source. Unpriced remote
    models cost 0.0; check ``is_priced`` to know whether that is a real zero.
    """
    price = _price(model, prices)
    if price is None:
        return 0.0
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def is_priced(model: str, prices: Prices | None = None) -> bool:
    """True when ``cost_usd`` is real for ``model``: it runs locally, or its price is configured or known."""
    return _price(model, prices) is not None


def check_budget(model: str, budget: float | None, prices: Prices | None, where: str = "budget") -> None:
    """Refuse a budget on a model whose price is unknown: every request would count as $0, and nothing would stop.

    Raises:
        ConfigError: naming ``where`` the budget came from (a flag, a file) and how to give the model a price.
    """
    if budget is None or is_priced(model, prices):
        return
    name = model.partition(":")[2] or model
    raise ConfigError(
        f"{where}: a budget of ${budget:g} cannot be enforced, because the model {model!r} has no known price "
        f'(every request would count as $0). Give it one in .chrysalis/config.toml: [prices] "{name}" = '
        "{ input = 0.5, output = 1.5 } (USD per million tokens), or run without --budget."
    )


def _price(model: str, prices: Prices | None) -> tuple[float, float] | None:
    """USD per million (input, output): the user's ``[prices]`` entry first (as written, then by bare name)."""
    configured = (prices.get(model) or prices.get(model.partition(":")[2] or model)) if prices else None
    return configured or price_per_million(model)


@lru_cache(maxsize=256)
def price_per_million(model: str) -> tuple[float, float] | None:
    """USD per million (input, output) tokens, ``(0, 0)`` for local models, ``None`` when unknown."""
    provider, _, name = model.partition(":") if ":" in model else ("", "", model)
    if provider in _FREE_PROVIDERS:
        return (0.0, 0.0)
    return _from_genai_prices(provider, name) or _from_table(name)


def _from_table(name: str) -> tuple[float, float] | None:
    bare = name.rsplit("/", 1)[-1].lower().replace(".", "-")  # openrouter's "anthropic/claude-3.5-sonnet"
    for prefix in sorted(PRICES, key=len, reverse=True):
        if bare.startswith(prefix.replace(".", "-")):
            return PRICES[prefix]
    return None


def _from_genai_prices(provider: str, name: str) -> tuple[float, float] | None:
    """Ask genai-prices' bundled snapshot (it never goes to the network unless told to)."""
    provider_id = _GENAI_PROVIDERS.get(provider)
    if provider_id is None:
        return None
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # pragma: no cover - it ships with pydantic-ai
        return None
    try:
        result = calc_price(Usage(input_tokens=1_000_000, output_tokens=1_000_000), name, provider_id=provider_id)
        per_input = calc_price(Usage(input_tokens=1_000_000, output_tokens=0), name, provider_id=provider_id)
    except (LookupError, ValueError):
        return None
    input_price = float(per_input.total_price)
    return (input_price, float(result.total_price) - input_price)
