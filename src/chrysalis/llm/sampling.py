"""The fast sampling path: one completion straight from a backend, for voting (no agent loop in between).

An agent step costs about 20 ms of framework time (history, validation, events, tools); a vote draws
several samples per step, so its samples go straight to a ``ChatBackend``: in process on llama.cpp,
or one HTTP request to an OpenAI-compatible server. On the embedded model every sample of one prompt
after the first reuses the KV cache of the whole prompt (the backend evaluates only the tokens after
the longest common prefix; ``Completion.cached_tokens`` says how many were reused), so a sample
costs only its own output tokens. Samples on the embedded model run one at a time (one ``Llama``,
one lock); over HTTP they run concurrently.

Voter ``i`` is decorrelated by its index: voter 0 decodes greedily, the others at a temperature that
grows with ``i`` (``Decorrelation``) and with seed ``i``, so a vote is reproducible.

    sampler = Sampler.for_model("local:qwen2.5-coder-0.5b", settings, max_tokens=16)
    result = await vote_async(sampler.voter(messages), VotingConfig.level("high"), normalize=parse)

``Sampler.answerer()`` answers micro-questions (``chrysalis.voting.micro``): the question's shared
context is the system message, so every question about one state reuses its KV cache. On the
embedded model the question is weighed once (each answer's probability, ``llm/local/choice.py``) and
every voter draws from that; elsewhere each voter is a completion constrained to the answers (a JSON
string enum) where the backend can. ``answerer(completion=True)`` asks with no chat template: the
context and the question are one text (a Python REPL transcript, say) that the answer continues.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, cast

from chrysalis.config import Settings
from chrysalis.llm.backend import AnswerOdds, ChatBackend, ChatMessage, Completion
from chrysalis.llm.names import ModelName
from chrysalis.voting.micro import Answerer, Question

__all__ = ["Decorrelation", "Sampler", "WeighsAnswers", "WeighsText", "completion_prompt", "draw", "question_messages"]


@dataclass(frozen=True)
class Decorrelation:
    """How voter ``i`` samples: greedy for voter 0, then ``first`` rising by ``step`` up to ``most``."""

    first: float = 0.4
    step: float = 0.1
    most: float = 1.0

    def temperature(self, i: int) -> float:
        """Voter ``i``'s temperature."""
        return 0.0 if i == 0 else min(self.most, self.first + self.step * (i - 1))


@dataclass
class Sampler:
    """Draws completions of one model for voters, with a cap on each reply's length."""

    backend: ChatBackend
    max_tokens: int = 64
    """A reply longer than this is cut (``finish_reason == "length"``): the ``too_long`` red flag's job."""
    json_schema: dict[str, Any] | None = None
    """Constrain every sample to this schema (where the backend can: the embedded model always can)."""
    decorrelation: Decorrelation = Decorrelation()

    @classmethod
    def for_model(cls, model: str, settings: Settings, **options: Any) -> Sampler:
        """A sampler on the raw backend of ``model``: ``local:...`` in process, or an OpenAI-compatible server.

        Any other provider (OpenAI, Anthropic, OpenRouter) samples through its pydantic-ai model
        (``ModelBackend``): one request per sample, no schema constraint. ``auto`` is resolved by the
        caller (it needs the eval store's records), so it is not a model here.

        Raises:
            UsageError: the model name is malformed or its provider unknown.
            MissingCredentialsError: the provider needs a key that is not set.
        """
        name = ModelName.parse(model, base_url=settings.base_url)
        if name.provider == "local":
            module = importlib.import_module("chrysalis.llm.local.llama_backend")
            backend = cast(ChatBackend, module.LlamaCppBackend.load(name.name, settings.home))
        elif name.provider in ("openai-compatible", "ollama") and (settings.base_url or name.provider == "ollama"):
            from chrysalis.llm.openai_compat import OpenAICompatBackend
            from chrysalis.llm.providers import DEFAULT_OLLAMA_URL

            url = settings.base_url or DEFAULT_OLLAMA_URL
            backend = OpenAICompatBackend(name.name, url)
        else:  # openai, anthropic, openrouter: through the provider's own client, as the agent uses it
            from chrysalis.llm.model_backend import ModelBackend
            from chrysalis.llm.providers import build_model

            backend = ModelBackend(build_model(replace(settings, model=model)))
        return cls(backend, **options)

    async def sample(self, messages: list[ChatMessage], i: int) -> Completion:
        """Voter ``i``'s completion of ``messages``."""
        schema = self.json_schema if self.backend.supports_json_schema else None
        return await self.backend.complete(
            messages,
            json_schema=schema,
            max_tokens=self.max_tokens,
            temperature=self.decorrelation.temperature(i),
            seed=i,
        )

    def voter(self, messages: list[ChatMessage]) -> Callable[[int], Awaitable[str]]:
        """The ``sample(i)`` that ``vote_async`` takes: voter ``i``'s reply text to ``messages``."""

        async def sample(i: int) -> str:
            completion = await self.sample(messages, i)
            return completion.text

        return sample

    def answerer(
        self, on_completion: Callable[[Completion], None] | None = None, *, completion: bool = False
    ) -> Answerer:
        """Voter ``i``'s answer to a micro-question: context first (the shared prefix), then the question.

        On a backend that can weigh answers (the embedded model), the question is evaluated once and
        each voter draws from the answers' distribution at its own temperature; elsewhere each voter
        is one completion, constrained to the answers where the backend can. ``on_completion`` sees
        each completion (its tokens, and how many came from the cache).

        ``completion=True`` asks in completion form: no chat template; the context and the question
        are one text that the answer continues, ended by a newline (``completion_prompt``). The
        question's text is then the transcript's last lines (``>>> A[-1]``), not a question.

        Raises:
            ValueError: ``completion`` on a backend that cannot weigh raw text (only the embedded model can).
        """
        if completion:
            weigh_text = cast("WeighsText | None", getattr(self.backend, "text_odds", None))
            if weigh_text is None:
                raise ValueError(
                    f"completion-form micro-questions need a backend that weighs raw text (the embedded model, "
                    f"local:...); {type(self.backend).__name__} cannot: ask in chat form instead"
                )
            return _weighed_answerer(
                lambda q: weigh_text(completion_prompt(q), list(q.answers)), self.decorrelation, on_completion
            )
        weigh = cast("WeighsAnswers | None", getattr(self.backend, "answer_odds", None))
        if weigh is not None:
            return _weighed_answerer(
                lambda q: weigh(question_messages(q), list(q.answers)), self.decorrelation, on_completion
            )

        async def answer(question: Question, i: int) -> str:
            completion = await self.backend.complete(
                question_messages(question),
                json_schema={"enum": list(question.answers)} if self.backend.supports_json_schema else None,
                max_tokens=self.max_tokens,
                temperature=self.decorrelation.temperature(i),
                seed=i,
            )
            if on_completion is not None:
                on_completion(completion)
            return completion.text

        return answer


class WeighsAnswers(Protocol):
    """A backend's ``answer_odds``: each offered answer's log-probability under a grammar of the answers."""

    def __call__(self, messages: list[ChatMessage], answers: list[str]) -> Awaitable[AnswerOdds]:
        """Weigh ``answers`` as the whole reply to ``messages``."""
        ...


class WeighsText(Protocol):
    """A backend's ``text_odds``: each answer's log-probability as the continuation of raw text."""

    def __call__(self, prompt: str, answers: list[str]) -> Awaitable[AnswerOdds]:
        """Weigh ``answers`` as what follows ``prompt``, each ended by a newline."""
        ...


def completion_prompt(question: Question) -> str:
    """The text a completion-form question is weighed after: its context, then its text, on lines of their own."""
    parts = [part if part.endswith("\n") else part + "\n" for part in (question.context, question.text) if part]
    return "".join(parts)


def question_messages(question: Question) -> list[ChatMessage]:
    """The messages that ask ``question``: its context as the system message, so questions share the prefix."""
    messages = [ChatMessage("system", question.context)] if question.context else []
    offered = ", ".join(question.answers)
    messages.append(ChatMessage("user", f"{question.text}\nAnswer with exactly one of: {offered}."))
    return messages


def _weighed_answerer(
    weigh: Callable[[Question], Awaitable[AnswerOdds]],
    decorrelation: Decorrelation,
    on_completion: Callable[[Completion], None] | None,
) -> Answerer:
    """Voters that draw from one weighing per wording of a question (the first voter of each weighs)."""
    weighed: dict[tuple[str, str, tuple[str, ...]], asyncio.Future[AnswerOdds]] = {}
    current: list[tuple[str, str, tuple[str, ...]]] = []

    async def answer(question: Question, i: int) -> str:
        key = (question.context, question.text, question.answers)
        asked = (question.name, question.context, question.answers)
        if i == 0 or current != [asked]:  # a vote starts at voter 0: only its question's wordings are kept
            weighed.clear()
            current[:] = [asked]
        first = key not in weighed
        if first:
            weighed[key] = asyncio.ensure_future(weigh(question))
        odds = await asyncio.shield(weighed[key])
        chosen = question.answers[draw(odds.logprobs, decorrelation.temperature(i), random.Random(f"{i}|{key}"))]
        if on_completion is not None:
            cached = odds.cached_tokens if first else odds.prompt_tokens
            on_completion(Completion(chosen, odds.prompt_tokens, 0, finish_reason="weighed", cached_tokens=cached))
        return chosen

    return answer


def draw(logprobs: list[float], temperature: float, rng: random.Random) -> int:
    """The index drawn from ``logprobs`` at ``temperature`` (0: the most likely, the first on a tie)."""
    if temperature <= 0:
        return max(range(len(logprobs)), key=lambda j: (logprobs[j], -j))
    top = max(logprobs)
    weights = [math.exp((lp - top) / temperature) for lp in logprobs]
    return rng.choices(range(len(logprobs)), weights=weights)[0]
