from __future__ import annotations

import asyncio
from typing import Any

import pytest

from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatMessage, Completion
from chrysalis.llm.openai_compat import OpenAICompatBackend, RetryPolicy
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

FAST = RetryPolicy(tries=3, base_delay=0.01)
MESSAGES = [ChatMessage("system", "Be brief."), ChatMessage("user", "hi")]


def complete(backend: OpenAICompatBackend, **kwargs: Any) -> Completion:
    return asyncio.run(backend.complete(MESSAGES, **kwargs))


def test_plain_completion_with_usage() -> None:
    with ScriptedOpenAIServer([ScriptedReply(text="Hello!", input_tokens=12, output_tokens=3)]) as server:
        backend = OpenAICompatBackend("tiny", server.base_url, api_key="sk-test", retry=FAST)
        result = complete(backend, max_tokens=50, temperature=0.2)
    assert result == Completion(text="Hello!", input_tokens=12, output_tokens=3, finish_reason="stop")
    body = server.requests[0]
    assert body["model"] == "tiny"
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert (body["max_tokens"], body["temperature"]) == (50, 0.2)
    assert "response_format" not in body
    assert "stream" not in body


def test_streaming_passes_text_on_as_it_comes() -> None:
    pieces: list[str] = []
    with ScriptedOpenAIServer([ScriptedReply(text="Hello there, friend", output_tokens=4)]) as server:
        backend = OpenAICompatBackend("tiny", server.base_url, retry=FAST)
        result = complete(backend, on_text=pieces.append)
    assert len(pieces) > 1
    assert "".join(pieces) == result.text == "Hello there, friend"
    assert result.output_tokens == 4
    assert server.requests[0]["stream"] is True


def test_json_schema_sent_only_when_enabled() -> None:
    schema = {"type": "object", "properties": {"final_answer": {"type": "string"}}}
    with ScriptedOpenAIServer(["{}", "{}"]) as server:
        complete(OpenAICompatBackend("m", server.base_url, retry=FAST), json_schema=schema)
        complete(OpenAICompatBackend("m", server.base_url, supports_json_schema=True, retry=FAST), json_schema=schema)
    assert "response_format" not in server.requests[0]
    assert server.requests[1]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema},
    }


def test_server_errors_are_retried_then_succeed() -> None:
    script: list[ScriptedReply | str] = [ScriptedReply.error(500), ScriptedReply.error(429), "ok"]
    with ScriptedOpenAIServer(script) as server:
        assert complete(OpenAICompatBackend("m", server.base_url, retry=FAST)).text == "ok"
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("error", "model", "match", "tries"),
    [
        (
            ScriptedReply.error(502, "upstream down"),
            "m",
            r"answered HTTP 502 \(after 3 tries\): .*upstream down.*try again later",
            3,
        ),
        (
            ScriptedReply.error(404, "no such model"),
            "ghost",
            r"HTTP 404 \(after 1 try\).*check the model name 'ghost'",
            1,
        ),
    ],
    ids=["server-error-retried-to-the-end", "client-error-not-retried"],
)
def test_an_http_error_becomes_a_model_error_after_the_tries_it_deserves(
    error: ScriptedReply, model: str, match: str, tries: int
) -> None:
    with ScriptedOpenAIServer(lambda body: error) as server:
        backend = OpenAICompatBackend(model, server.base_url, retry=FAST)
        with pytest.raises(ModelError, match=match):
            complete(backend)
    assert len(server.requests) == tries


def test_unreachable_server_is_a_clear_model_error() -> None:
    server = ScriptedOpenAIServer([])
    url = server.base_url
    server.stop()  # the port is now closed
    with pytest.raises(ModelError, match=r"Could not reach the model server .* after 2 tries.*server is running"):
        complete(OpenAICompatBackend("m", url, retry=RetryPolicy(tries=2, base_delay=0.01)))


def test_retry_policy_backoff() -> None:
    policy = RetryPolicy()
    assert [policy.delay(i) for i in range(5)] == [0.5, 1.0, 2.0, 4.0, 8.0]
    assert policy.delay(10) == 8.0
    assert policy.should_retry_status(503)
    assert policy.should_retry_status(429)
    assert not policy.should_retry_status(401)
