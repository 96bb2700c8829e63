"""The lean OpenAI client sends exactly what the stock client sends, without re-walking the conversation."""

from __future__ import annotations

import asyncio
from typing import Any

from openai import AsyncOpenAI

from chrysalis.llm.openai_lean import LeanAsyncOpenAI
from chrysalis.llm.testing import ScriptedOpenAIServer

MESSAGES: list[Any] = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "read chunk 1"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"i": 1}'}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "chunk 1: ok"},
]
TOOLS: list[Any] = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


async def send(client_class: type[AsyncOpenAI], url: str, **extra: Any) -> str:
    async with client_class(base_url=url, api_key="none", max_retries=0) as client:
        reply = await client.chat.completions.create(
            model="m", messages=MESSAGES, tools=TOOLS, temperature=0.5, **extra
        )
    return reply.choices[0].message.content or ""


def test_the_request_body_is_the_stock_clients() -> None:
    with ScriptedOpenAIServer(["one", "two"]) as server:
        assert asyncio.run(send(AsyncOpenAI, server.base_url)) == "one"
        assert asyncio.run(send(LeanAsyncOpenAI, server.base_url)) == "two"
    stock, lean = server.requests
    assert lean == stock and lean["messages"] == MESSAGES and lean["temperature"] == 0.5


def test_a_callers_extra_body_is_kept_beside_the_messages() -> None:
    with ScriptedOpenAIServer(["ok"]) as server:
        asyncio.run(send(LeanAsyncOpenAI, server.base_url, extra_body={"top_k": 3}))
    (body,) = server.requests
    assert body["top_k"] == 3 and body["messages"] == MESSAGES
