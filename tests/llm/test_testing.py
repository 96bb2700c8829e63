from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
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
        time.sleep(0.3)
        with pytest.raises(urllib.error.URLError):
            post(server.base_url, {})


def test_stops_itself_after_max_seconds() -> None:
    server = ScriptedOpenAIServer(["one"], max_seconds=0.2).start()
    time.sleep(0.5)
    with pytest.raises(urllib.error.URLError):
        post(server.base_url, {})
    server.stop()  # stopping again is harmless


def test_error_replies_carry_status_and_headers() -> None:
    with ScriptedOpenAIServer([ScriptedReply(text="slow down", status=429, headers={"Retry-After": "1"})]) as server:
        status, body = post(server.base_url, {})
    assert status == 429
    assert body["error"]["message"] == "slow down"
