from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

HANG_GUARD = 60.0
"""Seconds a wait may take before the test calls it a hang; never reached when the code works."""


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def test_answers_in_openai_wire_format_and_records_requests() -> None:
    script: list[ScriptedReply | str] = [ScriptedReply.tool_call("read_file", {"path": "a.py"}), "done"]
    with ScriptedOpenAIServer(script) as server:
        status, first = post(server.base_url, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        _, second = post(server.base_url, {"model": "m", "messages": []})
    assert status == 200
    call = first["choices"][0]["message"]["tool_calls"][0]
    assert call["function"] == {"name": "read_file", "arguments": '{"path": "a.py"}'}
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    assert first["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert second["choices"][0]["message"]["content"] == "done"
    assert server.requests[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_stops_itself_after_the_request_budget() -> None:
    with ScriptedOpenAIServer(["one"]) as server:
        assert post(server.base_url, {})[0] == 200
        status, body = post(server.base_url, {})
        assert status == 503
        assert "no more replies" in body["error"]["message"]
        assert server.stopped.wait(HANG_GUARD)  # it stops in the background once the budget is spent
        with pytest.raises(urllib.error.URLError):
            post(server.base_url, {})


def test_stops_itself_after_max_seconds() -> None:
    server = ScriptedOpenAIServer(["one"], max_seconds=0.2).start()
    assert server.stopped.wait(HANG_GUARD)
    with pytest.raises(urllib.error.URLError):
        post(server.base_url, {})
    assert not server.wait_for_requests(1)  # a stopped server never gets the request: the wait does not hang
    server.stop()  # stopping again is harmless


def test_error_replies_carry_status_and_headers() -> None:
    with ScriptedOpenAIServer([ScriptedReply(text="slow down", status=429, headers={"Retry-After": "1"})]) as server:
        status, body = post(server.base_url, {})
    assert status == 429
    assert body["error"]["message"] == "slow down"


def _post_in_background(url: str, answers: list[tuple[int, dict[str, Any]]]) -> threading.Thread:
    thread = threading.Thread(target=lambda: answers.append(post(url, {})), daemon=True)
    thread.start()
    return thread


def test_a_held_reply_waits_until_the_test_releases_it() -> None:
    answers: list[tuple[int, dict[str, Any]]] = []
    with ScriptedOpenAIServer([ScriptedReply(text="now", held=True), "next"]) as server:
        client = _post_in_background(server.base_url, answers)
        assert server.wait_for_requests(1, timeout=HANG_GUARD)
        assert answers == []  # the request has arrived and cannot have been answered: it is in flight
        server.release()
        client.join(HANG_GUARD)
        assert post(server.base_url, {})[1]["choices"][0]["message"]["content"] == "next"
    [(status, body)] = answers
    assert status == 200 and body["choices"][0]["message"]["content"] == "now"


def test_a_held_reply_is_refused_when_the_server_stops_first() -> None:
    answers: list[tuple[int, dict[str, Any]]] = []
    server = ScriptedOpenAIServer([ScriptedReply(text="never", held=True)]).start()
    client = _post_in_background(server.base_url, answers)
    assert server.wait_for_requests(1, timeout=HANG_GUARD)
    server.stop()  # what max_seconds does to a test that forgets to release
    client.join(HANG_GUARD)
    [(status, body)] = answers
    assert status == 503 and "stopped before the test released" in body["error"]["message"]
