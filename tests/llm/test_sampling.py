"""The fast sampling path: voters decorrelated by index, one HTTP request per sample, concurrent, capped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings

from chrysalis.config import load_settings
from chrysalis.errors import MissingCredentialsError
from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.model_backend import ModelBackend
from chrysalis.llm.sampling import Decorrelation, Sampler
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.voting import VotingConfig, vote_async

MESSAGES = [ChatMessage("user", "What is 2 + 2? Reply with the number.")]


def test_voter_zero_is_greedy_and_the_others_warm_up() -> None:
    d = Decorrelation()
    assert [d.temperature(i) for i in range(4)] == [0.0, 0.4, 0.5, pytest.approx(0.6)]
    assert d.temperature(50) == 1.0


def test_each_sample_is_one_request_with_the_voters_temperature_seed_and_cap(workspace: Path) -> None:
    with ScriptedOpenAIServer(["4", "4", "5"], replay_redraws=False) as server:
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
    with ScriptedOpenAIServer(replies, replay_redraws=False) as server:
        sampler = Sampler.for_model("m", load_settings({"workspace": workspace, "base_url": server.base_url}))

        async def main() -> str:
            voting = asyncio.create_task(vote_async(sampler.voter(MESSAGES), VotingConfig(n=3, k=3)))
            await asyncio.to_thread(server.wait_for_requests, 3)  # all three in flight before any answer
            server.release()
            return str((await voting).winner)

        assert asyncio.run(main()) == "4"


def test_a_provider_without_a_raw_backend_samples_through_its_own_client(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings({"workspace": workspace})
    with pytest.raises(MissingCredentialsError, match="ANTHROPIC_API_KEY"):
        Sampler.for_model("anthropic:claude-haiku", settings)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-test")
    for model in ("anthropic:claude-haiku", "openrouter:openai/gpt-4o-mini"):
        sampler = Sampler.for_model(model, settings, max_tokens=8)
        assert isinstance(sampler.backend, ModelBackend) and sampler.max_tokens == 8  # built, nothing sent


def test_a_model_backend_sends_the_chat_with_the_voters_settings_and_reads_the_reply() -> None:
    seen: list[tuple[list[ModelMessage], ModelSettings | None]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((messages, info.model_settings))
        return ModelResponse(parts=[TextPart('{"code": "return a - b"}')])

    backend = ModelBackend(FunctionModel(respond))
    chat = [ChatMessage("system", "Fix it."), ChatMessage("user", "def f(a, b): return a + b")]
    completion = asyncio.run(Sampler(backend, max_tokens=32).sample(chat, 2))
    assert completion.text == '{"code": "return a - b"}' and completion.output_tokens > 0
    ((messages, model_settings),) = seen
    (request,) = messages
    assert [type(part).__name__ for part in request.parts] == ["SystemPromptPart", "UserPromptPart"]
    assert model_settings is not None
    assert (model_settings.get("temperature"), model_settings.get("seed"), model_settings.get("max_tokens")) == (
        Decorrelation().temperature(2),
        2,
        32,
    )


class _WeighingBackend:
    """A backend that can weigh answers: fixed odds, and a count of how often it was asked."""

    name = "weighing"
    supports_json_schema = True

    def __init__(self, odds: list[float]) -> None:
        self.odds = odds
        self.weighed: list[str] = []

    async def answer_odds(self, messages: list[ChatMessage], answers: list[str]) -> Any:
        from chrysalis.llm.backend import AnswerOdds

        self.weighed.append(messages[-1].content)
        return AnswerOdds(logprobs=self.odds, prompt_tokens=40, cached_tokens=30)

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a backend that weighs answers is never asked to decode them")


def test_a_backend_that_weighs_answers_is_asked_once_per_question_and_voters_draw_from_it() -> None:
    import math

    from chrysalis.voting.micro import Question, ask

    backend = _WeighingBackend([math.log(0.7), math.log(0.2), math.log(0.1)])
    seen: list[Any] = []
    answerer = Sampler(backend).answerer(on_completion=seen.append)

    def chain() -> Any:
        first = yield Question("one", "First?", ("A", "B", "C"), "ctx")
        second = yield Question("two", f"After {first}?", ("A", "B", "C"), "ctx")
        return first + second

    result = asyncio.run(ask(chain(), answerer, VotingConfig(n=1, k=3, max_samples=40)))
    assert result.value == "AA"
    assert backend.weighed == [
        "First?\nAnswer with exactly one of: A, B, C.",
        "After A?\nAnswer with exactly one of: A, B, C.",
    ]
    assert result.samples > 3 and len(seen) == result.samples
    assert seen[0].cached_tokens == 30 and all(c.cached_tokens == 40 for c in seen[1 : result.steps[0].vote.samples])


def test_a_draw_at_temperature_zero_is_the_most_likely_answer_and_warmer_draws_spread() -> None:
    import math
    import random

    from chrysalis.llm.sampling import draw

    odds = [math.log(0.2), math.log(0.5), math.log(0.3)]
    assert draw(odds, 0.0, random.Random(1)) == 1
    warm = [draw(odds, 1.0, random.Random(seed)) for seed in range(300)]
    assert 0.35 < warm.count(1) / 300 < 0.65 and warm.count(0) > 20


class _TextWeighingBackend(_WeighingBackend):
    """A backend that weighs raw text too (the embedded model's completion form)."""

    async def text_odds(self, prompt: str, answers: list[str]) -> Any:
        from chrysalis.llm.backend import AnswerOdds

        self.weighed.append(prompt)
        return AnswerOdds(logprobs=self.odds, prompt_tokens=20, cached_tokens=10)


def test_a_completion_form_question_is_weighed_as_the_transcript_it_continues_with_no_chat_template() -> None:
    import math

    from chrysalis.voting.micro import Question, ask

    backend = _TextWeighingBackend([math.log(0.1), math.log(0.8), math.log(0.1)])
    answerer = Sampler(backend).answerer(completion=True)

    def chain() -> Any:
        top = yield Question("top_of_A", ">>> A[-1]", ("1", "2", "3"), ">>> A = [3, 2]")
        return int(top)

    result = asyncio.run(ask(chain(), answerer, VotingConfig(n=1, k=2, max_samples=20)))
    assert result.value == 2
    assert backend.weighed == [">>> A = [3, 2]\n>>> A[-1]\n"]  # the context, then the question, each a line


def test_the_completion_form_on_a_backend_that_cannot_weigh_raw_text_says_to_ask_in_chat_form() -> None:
    import math

    with pytest.raises(ValueError, match="completion-form micro-questions need a backend that weighs raw text"):
        Sampler(_WeighingBackend([math.log(1.0)])).answerer(completion=True)


def test_each_wording_of_a_question_is_weighed_once_per_vote_and_a_new_vote_weighs_again() -> None:
    import math

    from chrysalis.voting.micro import Question, decide

    backend = _TextWeighingBackend([math.log(0.9), math.log(0.1)])
    answerer = Sampler(backend).answerer(completion=True)
    question = Question("smaller", ">>> print(min(3, 10))", ("3", "10"), variants=(">>> print(min(10, 3))",))
    vote = asyncio.run(decide(question, answerer, VotingConfig(n=1, k=4, max_samples=40)))
    assert vote.answer == "3" and vote.vote.samples >= 4
    assert backend.weighed == [">>> print(min(3, 10))\n", ">>> print(min(10, 3))\n"]
    asyncio.run(decide(question, answerer, VotingConfig(n=1, k=2, max_samples=40)))
    assert len(backend.weighed) == 4  # the same question asked again (the next move's) is weighed again
