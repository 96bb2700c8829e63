from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.usage import UsageLimits

from chrysalis.llm import testing
from chrysalis.llm.testing import ScriptedModel, ScriptedOpenAIServer, ScriptedReply, Step, final, output_call, tool

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


# -- ScriptedModel: a pydantic-ai model that plays a script -------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_a_scripted_model_plays_its_steps_in_order_and_records_each_request() -> None:
    script = ScriptedModel([tool("add", a=2, b=3), final("5")])
    agent = Agent(script.model(), tools=[add], instructions="Be exact.")
    assert asyncio.run(agent.run("2 + 3?")).output == "5"
    assert len(script.seen) == len(script.infos) == 2
    assert script.instructions == ["Be exact.", "Be exact."]
    assert script.offered == [["add"], ["add"]]
    assert script.tool_returns() == [5]
    assert script.model().model_name == "function:respond:"  # pydantic-ai's name for a FunctionModel
    assert ScriptedModel([final("x")], name="gpt-4o").model().model_name == "gpt-4o"


def test_the_last_step_repeats_and_each_play_is_a_fresh_reply() -> None:
    script = ScriptedModel([tool("add", a=1, b=1)])
    agent = Agent(script.model(), tools=[add])
    with pytest.raises(UsageLimitExceeded):
        asyncio.run(agent.run("add forever", usage_limits=UsageLimits(request_limit=3)))
    assert len(script.seen) == 3
    calls = [part for message in script.seen[-1] for part in message.parts if isinstance(part, ToolCallPart)]
    assert [call.args for call in calls] == [{"a": 1, "b": 1}] * 2  # the replies to the first two requests
    assert calls[0] is not calls[1] and calls[0].tool_call_id != calls[1].tool_call_id  # a fresh reply each time


def test_output_call_fills_the_output_tool_with_its_usage_and_an_empty_step_has_no_parts() -> None:
    reply = output_call({"answer": 4}, input_tokens=7, output_tokens=2).response()
    [call] = reply.parts
    assert isinstance(call, ToolCallPart) and (call.tool_name, call.args) == ("final_result", {"answer": 4})
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (7, 2)
    assert Step().response().parts == []
    with pytest.raises(ValueError, match="at least one step"):
        ScriptedModel([])


def test_the_server_and_the_chat_fake_load_without_pydantic_ai() -> None:
    code = (
        "import sys\n"
        "from chrysalis.llm.testing import ScriptedChatBackend, ScriptedOpenAIServer, ScriptedReply\n"
        "print('pydantic_ai' in sys.modules)\n"
        "from chrysalis.llm.testing import ScriptedModel\n"
        "print('pydantic_ai' in sys.modules, ScriptedModel.__module__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "chrysalis.llm.testing.model"]
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        _ = testing.Nothing
