"""bench/local_server.py: the OpenAI wire format over a ChatBackend, with honest counters."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatMessage, Completion
from chrysalis.llm.openai_compat import OpenAICompatBackend
from tests.helpers import BENCH, E2E_MODEL, load_bench_module

ls = load_bench_module("local_server")


@dataclass
class RecordingBackend:
    """Answers ``reply`` and records every argument, optionally counting tokens like the real one."""

    reply: str = "hello"
    n_ctx: int = 100
    fail: Exception | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    streamed: int = 0

    @property
    def name(self) -> str:
        return "fake-model"

    @property
    def supports_json_schema(self) -> bool:
        return True

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        return sum(len(m.content.split()) for m in messages)

    async def complete(
        self,
        messages: list[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        on_text: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> Completion:
        self.calls.append({"messages": messages, "schema": json_schema, "max_tokens": max_tokens, "temp": temperature})
        if self.fail is not None:
            raise self.fail
        if on_text is not None:  # stream word by word, yielding to the loop like the real one, so a stop can cancel it
            for piece in self.reply.split(" "):
                on_text(piece + " ")
                self.streamed += 1
                await asyncio.sleep(0)  # a bare yield: the pieces that slip out before the cancel never depend on time
        return Completion(text=self.reply, input_tokens=self.count_tokens(messages), output_tokens=3)


@pytest.fixture
def backend() -> RecordingBackend:
    return RecordingBackend()


@pytest.fixture
def server(backend: RecordingBackend) -> Iterator[Any]:
    srv = ls.ModelServer(backend, 0, default_max_tokens=50)
    thread = threading.Thread(target=srv.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


HANG_GUARD = 60.0
"""Seconds before a request or thread counts as hung; the fake backend answers in milliseconds."""


def call(
    server: Any, path: str, body: dict[str, Any] | bytes | None = None, timeout: float = HANG_GUARD
) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def chat(**extra: Any) -> dict[str, Any]:
    return {
        "model": "anything",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there"}],
        **extra,
    }


def test_chat_completion_in_the_openai_shape(server: Any, backend: RecordingBackend) -> None:
    status, body = call(server, "/v1/chat/completions", chat(max_tokens=7, temperature=0.5))
    assert status == 200
    assert body["object"] == "chat.completion" and body["model"] == "fake-model"
    assert body["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
    ]
    assert body["usage"] == {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7}
    [seen] = backend.calls
    assert seen["messages"] == [ChatMessage("system", "be brief"), ChatMessage("user", "hi there")]
    assert (seen["max_tokens"], seen["temp"], seen["schema"]) == (7, 0.5, None)


def test_defaults_are_greedy_and_the_servers_max_tokens(server: Any, backend: RecordingBackend) -> None:
    call(server, "/v1/chat/completions", chat())
    assert (backend.calls[0]["max_tokens"], backend.calls[0]["temp"]) == (50, 0.0)


def test_max_tokens_is_clamped_to_the_room_left_in_the_context(server: Any, backend: RecordingBackend) -> None:
    backend.n_ctx = 10  # the prompt takes 4 "tokens"
    call(server, "/v1/chat/completions", chat(max_completion_tokens=500))
    assert backend.calls[0]["max_tokens"] == 6
    backend.n_ctx = 4
    status, body = call(server, "/v1/chat/completions", chat())
    assert status == 400 and body["error"]["code"] == "context_length_exceeded"


def test_response_format_becomes_the_decoding_schema(server: Any, backend: RecordingBackend) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema, "strict": True}}
    call(server, "/v1/chat/completions", chat(response_format=fmt))
    call(server, "/v1/chat/completions", chat(response_format={"type": "json_object"}))
    call(server, "/v1/chat/completions", chat(response_format={"type": "text"}))
    assert [c["schema"] for c in backend.calls] == [schema, {"type": "object"}, None]


def test_text_parts_and_developer_role_are_accepted(server: Any, backend: RecordingBackend) -> None:
    messages = [
        {"role": "developer", "content": "rules"},
        {"role": "user", "content": [{"type": "text", "text": "a "}, {"type": "text", "text": "b"}]},
    ]
    status, _ = call(server, "/v1/chat/completions", {"messages": messages})
    assert status == 200
    assert backend.calls[0]["messages"] == [ChatMessage("system", "rules"), ChatMessage("user", "a b")]


def test_a_stop_string_ends_generation_and_cuts_the_text(server: Any, backend: RecordingBackend) -> None:
    backend.reply = "answer: 4 [[ ## completed ## ]]" + " and more" * 50
    _, body = call(server, "/v1/chat/completions", chat(stop=["[[ ## completed"]))
    assert body["choices"][0]["message"]["content"] == "answer: 4 "
    assert body["choices"][0]["finish_reason"] == "stop"
    assert backend.streamed < 10  # cancelled soon after the stop string, not run to the end
    assert body["usage"]["prompt_tokens"] == 4 and body["usage"]["completion_tokens"] == backend.streamed


def test_a_stop_string_that_never_comes_changes_nothing(server: Any, backend: RecordingBackend) -> None:
    backend.reply = "a b c"
    _, body = call(server, "/v1/chat/completions", chat(stop="zzz"))
    assert body["choices"][0]["message"]["content"] == "a b c"
    assert body["usage"]["completion_tokens"] == 3


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ({"n": 2}, "n=2"),
        ({"stream": True}, "streaming"),
        ({"tools": [{"type": "function"}]}, "tool calls"),
        ({"messages": []}, "non-empty"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "role 'tool'"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"temperature": "hot"}, "temperature"),
        ({"response_format": {"type": "yaml"}}, "response_format"),
    ],
)
def test_requests_it_cannot_honour_are_refused_with_a_reason(
    server: Any, backend: RecordingBackend, extra: dict[str, Any], needle: str
) -> None:
    status, body = call(server, "/v1/chat/completions", chat(**extra))
    assert status == 400 and needle in body["error"]["message"]
    assert backend.calls == []


def test_bad_json_unknown_routes_and_model_errors(server: Any, backend: RecordingBackend) -> None:
    assert call(server, "/v1/chat/completions", b"{not json")[0] == 400
    assert call(server, "/v1/completions", chat())[0] == 404
    assert call(server, "/nope")[0] == 404
    backend.fail = ModelError("llama.cpp failed")
    status, body = call(server, "/v1/chat/completions", chat())
    assert status == 500 and "llama.cpp failed" in body["error"]["message"]


def test_models_and_stats_count_what_was_served(server: Any) -> None:
    assert call(server, "/v1/models")[1]["data"][0]["id"] == "fake-model"
    assert call(server, "/stats")[1]["requests"] == 0
    for _ in range(3):
        call(server, "/v1/chat/completions", chat())
    call(server, "/v1/chat/completions", chat(n=3))
    stats = call(server, "/stats")[1]
    assert {k: stats[k] for k in ("requests", "errors", "prompt_tokens", "completion_tokens")} == {
        "requests": 3,
        "errors": 1,
        "prompt_tokens": 12,
        "completion_tokens": 9,
    }
    assert stats["generation_seconds"] >= 0


def test_our_own_openai_client_talks_to_it(server: Any) -> None:
    client = OpenAICompatBackend("fake-model", server.url + "/v1")
    completion = asyncio.run(client.complete([ChatMessage("user", "hi")], max_tokens=5))
    assert (completion.text, completion.output_tokens) == ("hello", 3)


def test_concurrent_clients_are_served_one_at_a_time(server: Any, backend: RecordingBackend) -> None:
    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(call(server, "/v1/chat/completions", chat())[0]))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    assert results == [200] * 6 and call(server, "/stats")[1]["requests"] == 6


@pytest.mark.e2e
@pytest.mark.usefixtures("real_model_cache")
def test_the_script_serves_the_embedded_model() -> None:
    cmd = [sys.executable, str(BENCH / "local_server.py"), "--model", E2E_MODEL, "--port", "0", "--n-ctx", "2048"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            at = _At(url)
            schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
            body = chat(max_tokens=8, response_format={"type": "json_schema", "json_schema": {"schema": schema}})
            status, answer = call(at, "/v1/chat/completions", body, timeout=300)  # a busy machine is slow
            assert status == 200
            assert isinstance(json.loads(answer["choices"][0]["message"]["content"])["n"], int)
            assert call(at, "/stats")[1]["requests"] == 1
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err


@dataclass
class _At:
    """Just enough of a server for ``call``: its URL."""

    url: str
