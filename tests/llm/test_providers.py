from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from pydantic_ai import Agent, AgentRunResult
from pydantic_ai.exceptions import ModelHTTPError, UnexpectedModelBehavior

from chrysalis.config import Settings
from chrysalis.errors import MissingCredentialsError, ModelError, UsageError
from chrysalis.llm.providers import RetryPolicy, build_model, translate_model_error
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

FAST = RetryPolicy(tries=3, base_delay=0.01)
KEYS = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "OPENROUTER_API_KEY": "sk-r"}


def settings(model: str, base_url: str | None = None) -> Settings:
    return Settings(model=model, base_url=base_url, home=Path("/nonexistent-home"))


async def run(agent: Agent[None, str], prompt: str) -> AgentRunResult[str]:
    async with agent:  # closes the provider's HTTP client, as the agent loop does
        return await agent.run(prompt)


def double(x: int) -> int:
    """Double a number."""
    return 2 * x


@pytest.mark.parametrize(
    ("model", "cls", "system", "url"),
    [
        ("openai:gpt-4o-mini", "OpenAIChatModel", "openai", "https://api.openai.com/v1/"),
        ("anthropic:claude-3-5-haiku-latest", "AnthropicModel", "anthropic", "https://api.anthropic.com"),
        ("openrouter:anthropic/claude-3.5-sonnet", "OpenAIChatModel", "openrouter", "https://openrouter.ai/api/v1/"),
        ("ollama:qwen2.5-coder", "OpenAIChatModel", "ollama", "http://127.0.0.1:11434/v1/"),
    ],
)
def test_each_provider_builds_without_a_request(model: str, cls: str, system: str, url: str) -> None:
    built = build_model(settings(model), environ=KEYS)
    assert type(built).__name__ == cls
    assert built.system == system
    assert built.model_name == model.split(":", 1)[1]
    assert built.base_url == url


def test_ollama_base_url_from_env() -> None:
    built = build_model(settings("ollama:llama3"), environ={"OLLAMA_BASE_URL": "http://gpu-box:11434/v1"})
    assert built.base_url == "http://gpu-box:11434/v1/"


def test_base_url_needs_no_key() -> None:
    built = build_model(settings("my-model", "http://127.0.0.1:9/v1"), environ={})
    assert type(built).__name__ == "OpenAIChatModel"
    assert built.base_url == "http://127.0.0.1:9/v1/"


@pytest.mark.parametrize(
    ("model", "var"),
    [
        ("openai:gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
        ("openrouter:openai/gpt-4o", "OPENROUTER_API_KEY"),
    ],
)
def test_missing_key_names_the_env_var(model: str, var: str) -> None:
    with pytest.raises(MissingCredentialsError, match=f"set the {var} environment variable") as info:
        build_model(settings(model), environ={var: "  "})
    assert info.value.env_var == var
    assert info.value.exit_code == 2


def test_unknown_provider_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="Known providers"):
        build_model(settings("gemini:pro"), environ=KEYS)


def test_local_model_loads_the_embedded_backend_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    from chrysalis.llm.testing import ScriptedChatBackend
    from chrysalis.llm.text_protocol import TextToolModel

    loaded: list[tuple[str, Path]] = []

    class FakeLlama:
        @staticmethod
        def load(model: str, home: Path) -> ScriptedChatBackend:
            loaded.append((model, home))
            return ScriptedChatBackend(["hi"], name=model)

    module = type(sys)("chrysalis.llm.local.llama_backend")
    vars(module)["LlamaCppBackend"] = FakeLlama
    monkeypatch.setitem(sys.modules, "chrysalis.llm.local.llama_backend", module)
    built = build_model(settings("local:qwen2.5-coder-0.5b"), environ={})
    assert isinstance(built, TextToolModel)
    assert loaded == [("qwen2.5-coder-0.5b", Path("/nonexistent-home"))]
    assert built.system == "local"


def test_openai_tool_call_round_trip_against_a_scripted_server() -> None:
    script = [ScriptedReply.tool_call("double", {"x": 21}), ScriptedReply(text="The answer is 42.")]
    with ScriptedOpenAIServer(script) as server:
        model = build_model(settings("openai:gpt-4o-mini", server.base_url), retry=FAST, environ={})
        result = asyncio.run(run(Agent(model, tools=[double]), "Double 21."))
    assert result.output == "The answer is 42."
    first, second = server.requests
    assert first["model"] == "gpt-4o-mini"
    assert first["tools"][0]["function"]["name"] == "double"
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_0", "content": "42"}
    assert result.usage.requests == 2


def test_server_errors_are_retried_then_succeed() -> None:
    script = [ScriptedReply.error(500), ScriptedReply.error(503), ScriptedReply(text="fine")]
    with ScriptedOpenAIServer(script) as server:
        model = build_model(settings("m", server.base_url), retry=FAST, environ={})
        assert asyncio.run(run(Agent(model), "hi")).output == "fine"
    assert len(server.requests) == 3


def test_persistent_server_error_becomes_a_clear_model_error() -> None:
    with ScriptedOpenAIServer(lambda body: ScriptedReply.error(500, "kaput")) as server:
        model = build_model(settings("m", server.base_url), retry=FAST, environ={})
        with pytest.raises(ModelHTTPError) as info:
            asyncio.run(run(Agent(model), "hi"))
    assert len(server.requests) == 3
    error = translate_model_error(info.value)
    assert isinstance(error, ModelError)
    assert "HTTP 500 (after retries with backoff)" in str(error)
    assert "kaput" in str(error)
    assert "try again later" in str(error)
    assert error.__cause__ is info.value


def test_auth_error_is_not_retried_and_says_to_check_the_key() -> None:
    with ScriptedOpenAIServer([ScriptedReply.error(401, "bad key")]) as server:
        model = build_model(settings("m", server.base_url), retry=FAST, environ={})
        with pytest.raises(ModelHTTPError) as info:
            asyncio.run(run(Agent(model), "hi"))
    assert len(server.requests) == 1
    assert "check the key" in str(translate_model_error(info.value))


def test_unreachable_server_translates_to_model_error() -> None:
    server = ScriptedOpenAIServer([])
    url = server.base_url
    server.stop()
    model = build_model(settings("m", url), retry=RetryPolicy(tries=2, base_delay=0.01), environ={})
    with pytest.raises(Exception) as info:  # noqa: PT011 - the point is what it translates to
        asyncio.run(run(Agent(model), "hi"))
    error = translate_model_error(info.value)
    assert isinstance(error, ModelError)
    assert "Could not get an answer from the model 'm'" in str(error)
    assert "--base-url" in str(error)


def test_translate_leaves_other_errors_alone_and_unwraps_groups() -> None:
    assert translate_model_error(ValueError("a bug")) is None
    own = ModelError("already ours")
    assert translate_model_error(own) is own
    group = ExceptionGroup("g", [ValueError("x"), UnexpectedModelBehavior("garbage")])
    translated = translate_model_error(group)
    assert translated is not None
    assert "unusable: garbage" in str(translated)


def test_importing_the_factory_loads_no_provider_sdk() -> None:
    import subprocess

    code = (
        "import sys, chrysalis.llm.providers, chrysalis.llm.pricing, chrysalis.llm.names; "
        "print(sorted(m for m in ('pydantic_ai', 'openai', 'anthropic', 'httpx', 'httpx2', 'genai_prices') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
