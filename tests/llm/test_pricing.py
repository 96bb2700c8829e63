from __future__ import annotations

import pytest

from chrysalis.llm.pricing import cost_usd, is_priced, price_per_million


def test_local_models_are_free_and_priced() -> None:
    assert cost_usd("local:qwen2.5-coder-1.5b", 10_000, 5_000) == 0.0
    assert cost_usd("ollama:llama3", 10_000, 5_000) == 0.0
    assert is_priced("local:qwen2.5-coder-1.5b")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-4o-mini", 0.15 + 0.60),
        ("openai:gpt-4o", 2.50 + 10.00),
        ("openai:gpt-4.1", 2.00 + 8.00),
        ("anthropic:claude-3-5-haiku-latest", 0.80 + 4.00),
        ("anthropic:claude-sonnet-4-0", 3.00 + 15.00),
    ],
)
def test_known_models(model: str, expected: float) -> None:
    assert cost_usd(model, 1_000_000, 1_000_000) == pytest.approx(expected, rel=0.05)
    assert is_priced(model)


def test_table_fallback_for_names_genai_prices_does_not_know() -> None:
    # A bare name (OpenAI-compatible server) is looked up in our own table only.
    assert price_per_million("gpt-4.1-mini-2025-04-14") == (0.40, 1.60)
    assert cost_usd("claude-3-7-sonnet-20250219", 1_000_000, 0) == pytest.approx(3.0)


def test_input_and_output_are_priced_separately() -> None:
    assert cost_usd("openai:gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost_usd("openai:gpt-4o-mini", 0, 1_000_000) == pytest.approx(0.60)


def test_unknown_remote_model_is_unpriced() -> None:
    assert not is_priced("openai:totally-new-model")
    assert cost_usd("openai:totally-new-model", 1_000_000, 1_000_000) == 0.0
    assert not is_priced("my-server-model")
