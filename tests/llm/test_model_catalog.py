"""The model catalogue: built-in cards, guessed cards, ``models.json`` overrides, discovery at ``/models``."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from chrysalis.errors import ConfigError, ModelError
from chrysalis.llm.model_catalog import CAPABILITIES, Catalog, discover, guess_card
from chrysalis.llm.testing import ScriptedOpenAIServer


def test_the_built_in_catalogue_knows_the_embedded_models_and_the_usual_remote_ones() -> None:
    catalog = Catalog.load()
    small, default = catalog.card("local:qwen2.5-coder-0.5b"), catalog.card("local:qwen2.5-coder-1.5b")
    assert small.cost_tier == default.cost_tier == "free" and small.strength < default.strength
    assert "coding" in default.capabilities and small.source == "built-in"
    mini, big = catalog.card("openai:gpt-4o-mini"), catalog.card("openai:gpt-4.1")
    assert mini.speed == "fast" and mini.cost_tier == "low" and big.strength > mini.strength
    for card in catalog:
        assert card.capabilities <= set(CAPABILITIES) and 1 <= card.strength <= 5 and card.context > 0


@pytest.mark.parametrize(
    ("model", "strength", "speed", "tier", "has", "lacks"),
    [
        ("ollama:llama3.1:70b", 4, "medium", "free", {"coding", "reasoning"}, set()),
        ("ollama:qwen2.5-coder:0.5b", 1, "fast", "free", {"coding"}, {"reasoning"}),
        ("openai:o3-mini", 3, "slow", "medium", {"reasoning"}, set()),
        ("anthropic:claude-3-haiku-20240307", 3, "fast", "low", {"tools"}, set()),
        ("openai-compatible:mystery", 4, "medium", "medium", {"coding"}, set()),
    ],
)
def test_an_unknown_model_gets_a_card_guessed_from_its_name_and_price(
    model: str, strength: int, speed: str, tier: str, has: set[str], lacks: set[str]
) -> None:
    card = guess_card(model)
    assert (card.strength, card.speed, card.cost_tier, card.source) == (strength, speed, tier, "guessed")
    assert has <= card.capabilities and not (lacks & card.capabilities)
    assert Catalog.load().card(model) == card  # the catalogue falls back to the guess


def test_models_json_overrides_fields_and_adds_models(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text(
        json.dumps(
            {
                "models": {
                    "openai:gpt-4o-mini": {"strength": 5},
                    "my-server-model": {
                        "capabilities": ["coding"],
                        "cost_tier": "free",
                        "speed": "fast",
                        "context": 8192,
                    },
                }
            }
        )
    )
    catalog = Catalog.load(tmp_path)
    mini = catalog.card("openai:gpt-4o-mini")
    assert mini.strength == 5 and mini.speed == "fast" and mini.source == "models.json"  # the rest stays built-in
    mine = catalog.card("my-server-model")
    assert mine.capabilities == {"coding"} and mine.context == 8192 and mine.cost_tier == "free" and mine.stated


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('{"models": {"a": {"speed": "fast",}}}', ["models.json", "not valid JSON at line 1", '"models"']),
        ('["a"]', ["models.json", 'a "models" object']),
        ('{"models": {"m": {"speed": "warp"}}}', ["'m'", "'speed'", "'warp'", "fast, medium, slow"]),
        ('{"models": {"m": {"strength": 9}}}', ["'m'", "'strength'", "1 to 5"]),
        ('{"models": {"m": {"capabilities": ["flying"]}}}', ["'capabilities'", "coding, tools"]),
        ('{"models": {"m": {"colour": "red"}}}', ["unknown field", "colour", "Allowed"]),
        ('{"models": {"m": "fast"}}', ["'m'", "must be an object"]),
    ],
)
def test_a_bad_models_json_is_a_config_error_naming_the_file_the_model_and_the_field(
    tmp_path: Path, text: str, needles: list[str]
) -> None:
    (tmp_path / "models.json").write_text(text)
    with pytest.raises(ConfigError) as caught:
        Catalog.load(tmp_path)
    for needle in needles:
        assert needle in str(caught.value)
    assert str(tmp_path / "models.json") in str(caught.value)


def test_discovery_lists_a_servers_models_and_the_catalogue_takes_them_in() -> None:
    with ScriptedOpenAIServer([], models=["qwen2.5-coder-7b-instruct", "gpt-4o-mini"]) as server:
        found = discover(server.base_url, "key", provider="ollama")
        bare = discover(server.base_url)
        assert server.requests == []  # a listing is not a completion request
    assert found == ["ollama:qwen2.5-coder-7b-instruct", "ollama:gpt-4o-mini"]
    assert bare == ["qwen2.5-coder-7b-instruct", "gpt-4o-mini"]
    catalog = Catalog.load(discovered=[*found, "openai:gpt-4o-mini"])
    card = catalog.card("ollama:qwen2.5-coder-7b-instruct")
    assert card.source == "discovered" and card.strength == 3 and "coding" in card.capabilities
    assert catalog.card("openai:gpt-4o-mini").source == "built-in"  # what the catalogue states wins over a guess


def test_discovery_failures_say_which_url_and_what_to_check() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ModelError, match=rf"Cannot reach http://127.0.0.1:{port}/v1/models.*--base-url"):
        discover(f"http://127.0.0.1:{port}/v1", timeout=2.0)
    with ScriptedOpenAIServer([]) as server, pytest.raises(ModelError, match="answered 404"):
        discover(server.base_url + "/nothing-here/x")
