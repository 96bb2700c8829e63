"""The fast sampling path: voters decorrelated by index, one HTTP request per sample, concurrent, capped."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.errors import UsageError
from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.sampling import Decorrelation, Sampler
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.voting import VotingConfig, vote_async

MESSAGES = [ChatMessage("user", "What is 2 + 2? Reply with the number.")]


def test_voter_zero_is_greedy_and_the_others_warm_up() -> None:
    d = Decorrelation()
    assert [d.temperature(i) for i in range(4)] == [0.0, 0.4, 0.5, pytest.approx(0.6)]
    assert d.temperature(50) == 1.0


def test_each_sample_is_one_request_with_the_voters_temperature_seed_and_cap(workspace: Path) -> None:
    with ScriptedOpenAIServer(["4", "4", "5"]) as server:
        sampler = Sampler.for_model(
            "m", load_settings({"workspace": workspace, "base_url": server.base_url}), max_tokens=8
        )

        async def draw() -> list[str]:
            return [(await sampler.sample(MESSAGES, i)).text for i in range(3)]

        assert asyncio.run(draw()) == ["4", "4", "5"]
    sent = [(r["temperature"], r["seed"], r["max_tokens"], r["model"]) for r in server.requests]
    assert sent == [(0.0, 0, 8, "m"), (0.4, 1, 8, "m"), (0.5, 2, 8, "m")]
    assert all(r["messages"] == [{"role": "user", "content": MESSAGES[0].content}] for r in server.requests)


def test_a_vote_over_http_draws_its_first_samples_concurrently(workspace: Path) -> None:
    replies = [ScriptedReply(text="4", held=True)] * 3 + [ScriptedReply(text="4")] * 3
    with ScriptedOpenAIServer(replies) as server:
        sampler = Sampler.for_model("m", load_settings({"workspace": workspace, "base_url": server.base_url}))

        async def main() -> str:
            voting = asyncio.create_task(vote_async(sampler.voter(MESSAGES), VotingConfig(n=3, k=3)))
            await asyncio.to_thread(server.wait_for_requests, 3)  # all three in flight before any answer
            server.release()
            return str((await voting).winner)

        assert asyncio.run(main()) == "4"


def test_a_provider_without_a_raw_backend_is_a_clear_error(workspace: Path) -> None:
    with pytest.raises(UsageError, match="no fast sampling path"):
        Sampler.for_model("anthropic:claude-haiku", load_settings({"workspace": workspace}))
