"""End-to-end: the real 0.5B model, loaded from the real weights cache (see conftest.py)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.local.llama_backend import ContextOverflowError, LlamaCppBackend, loaded_models
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]

TOOL_OR_ANSWER: dict[str, Any] = {
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "tool_to_use": {"const": "read_file"},
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                    "additionalProperties": False,
                },
            },
            "required": ["tool_to_use", "parameters"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"final_answer": {"type": "string"}},
            "required": ["final_answer"],
            "additionalProperties": False,
        },
    ]
}
MESSAGES = [
    ChatMessage(
        "system",
        'You are a coding agent. Answer with JSON only: a tool call {"tool_to_use": "read_file", '
        '"parameters": {"path": "..."}} or {"final_answer": "..."}.',
    ),
    ChatMessage("user", "Show me what is in calc.py."),
]


def load(home: Path, n_ctx: int = 4096) -> LlamaCppBackend:
    return LlamaCppBackend.load(E2E_MODEL, home, n_ctx=n_ctx)


def matches_schema(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if set(value) == {"final_answer"}:
        return isinstance(value["final_answer"], str)
    params = value.get("parameters")
    return (
        set(value) == {"tool_to_use", "parameters"}
        and value["tool_to_use"] == "read_file"
        and isinstance(params, dict)
        and set(params) == {"path"}
        and isinstance(params["path"], str)
    )


def test_constrained_completion_is_a_valid_tool_call_or_answer(chrysalis_home: Path) -> None:
    backend = load(chrysalis_home)
    completion = asyncio.run(backend.complete(MESSAGES, json_schema=TOOL_OR_ANSWER, max_tokens=128))
    parsed = json.loads(completion.text)
    assert matches_schema(parsed), completion.text
    if "tool_to_use" in parsed:  # the grammar keeps the schema's key order: the tool first, then its arguments
        assert list(parsed) == ["tool_to_use", "parameters"]
    assert completion.input_tokens == backend.count_tokens(MESSAGES)
    assert completion.output_tokens > 0
    assert completion.finish_reason == "stop"


def test_streaming_delivers_every_piece_on_the_callers_thread(chrysalis_home: Path) -> None:
    backend = load(chrysalis_home)
    pieces: list[str] = []
    threads: set[int] = set()

    def on_text(piece: str) -> None:
        pieces.append(piece)
        threads.add(threading.get_ident())

    async def run() -> str:
        completion = await backend.complete(MESSAGES, json_schema=TOOL_OR_ANSWER, max_tokens=128, on_text=on_text)
        return completion.text

    text = asyncio.run(run())
    assert len(pieces) > 1
    assert "".join(pieces) == text
    assert threads == {threading.get_ident()}  # asyncio.run's loop runs on this thread


def test_unconstrained_generation_stops_at_max_tokens(chrysalis_home: Path) -> None:
    backend = load(chrysalis_home)
    messages = [ChatMessage("user", "Write a long poem about compilers.")]
    completion = asyncio.run(backend.complete(messages, max_tokens=8))
    assert completion.finish_reason == "length"
    assert 0 < completion.output_tokens <= 9  # re-tokenizing the text may merge or split one token
    assert completion.input_tokens > 5


def test_one_llama_per_weights_and_context_size(chrysalis_home: Path) -> None:
    first, second = load(chrysalis_home), load(chrysalis_home)
    assert first._loaded is second._loaded
    assert sum(1 for _, n_ctx in loaded_models() if n_ctx == 4096) == 1


def test_a_prompt_that_cannot_fit_is_refused_before_generating(chrysalis_home: Path) -> None:
    backend = load(chrysalis_home, n_ctx=512)
    messages = [ChatMessage("user", "word " * 600)]
    with pytest.raises(ContextOverflowError) as caught:
        asyncio.run(backend.complete(messages, max_tokens=64))
    assert caught.value.prompt_tokens > 512 - 64
    assert caught.value.n_ctx == 512


def test_cancelling_a_call_frees_the_model_for_the_next(chrysalis_home: Path) -> None:
    backend = load(chrysalis_home)
    messages = [ChatMessage("user", "Count from 1 to 500, one number per line.")]

    async def run() -> str:
        first_piece = asyncio.Event()
        task = asyncio.create_task(backend.complete(messages, max_tokens=1000, on_text=lambda _: first_piece.set()))
        await first_piece.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # 300 s only tells a model left locked by the cancel (a hang) from a slow one: 64 tokens take seconds
        done = await asyncio.wait_for(backend.complete(MESSAGES, json_schema=TOOL_OR_ANSWER, max_tokens=64), 300)
        return done.text

    assert matches_schema(json.loads(asyncio.run(run())))
