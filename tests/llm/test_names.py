from __future__ import annotations

import pytest

from chrysalis.errors import UsageError
from chrysalis.llm.names import ModelName


@pytest.mark.parametrize(
    ("spec", "base_url", "provider", "name"),
    [
        ("local:qwen2.5-coder-1.5b", None, "local", "qwen2.5-coder-1.5b"),
        ("openai:gpt-4o-mini", None, "openai", "gpt-4o-mini"),
        ("anthropic:claude-3-5-haiku-latest", None, "anthropic", "claude-3-5-haiku-latest"),
        ("openrouter:anthropic/claude-3.5-sonnet", None, "openrouter", "anthropic/claude-3.5-sonnet"),
        ("ollama:qwen2.5:0.5b", None, "ollama", "qwen2.5:0.5b"),
        ("  openai:gpt-4o  ", None, "openai", "gpt-4o"),
        ("my-model", "http://127.0.0.1:8080/v1", "openai-compatible", "my-model"),
        ("qwen2.5:0.5b", "http://127.0.0.1:8080/v1", "openai-compatible", "qwen2.5:0.5b"),
        ("openai:gpt-4o", "http://127.0.0.1:8080/v1", "openai-compatible", "gpt-4o"),
        ("ollama:llama3", "http://10.0.0.2:11434/v1", "ollama", "llama3"),
    ],
)
def test_parse(spec: str, base_url: str | None, provider: str, name: str) -> None:
    parsed = ModelName.parse(spec, base_url=base_url)
    assert (parsed.provider, parsed.name) == (provider, name)
    assert str(parsed) == f"{provider}:{name}"


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(
        UsageError, match=r"Unknown model provider 'gemini'.*local, openai, anthropic, openrouter, ollama"
    ):
        ModelName.parse("gemini:pro")


def test_bare_name_needs_base_url() -> None:
    with pytest.raises(UsageError, match=r"has no provider.*--base-url"):
        ModelName.parse("gpt-4o")


def test_empty_name_is_refused() -> None:
    with pytest.raises(UsageError, match="empty name"):
        ModelName.parse("openai:")


def test_local_with_base_url_is_refused() -> None:
    with pytest.raises(UsageError, match="--base-url cannot be used with the embedded model"):
        ModelName.parse("local:qwen2.5-coder-1.5b", base_url="http://127.0.0.1:1/v1")


def test_is_local() -> None:
    assert ModelName.parse("local:x").is_local
    assert ModelName.parse("ollama:x").is_local
    assert not ModelName.parse("openai:x").is_local
