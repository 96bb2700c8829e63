"""On the embedded model, every sample of one prompt after the first reuses the KV cache of the whole prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.sampling import Sampler
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]


def test_later_samples_of_a_prompt_evaluate_only_their_own_tokens(workspace: Path) -> None:
    sampler = Sampler.for_model(f"local:{E2E_MODEL}", load_settings({"workspace": workspace}), max_tokens=8)
    prompt = [ChatMessage("user", "Count the vowels in 'decorrelation'. " * 8 + "Reply with one number.")]
    other = [ChatMessage("user", "Name a colour. Reply with one word.")]

    async def draw() -> list[tuple[int, int, str]]:
        await sampler.sample(other, 0)  # the cache now holds some other prompt
        out = []
        for i in range(3):
            c = await sampler.sample(prompt, i)
            out.append((c.input_tokens, c.cached_tokens, c.finish_reason))
        return out

    (tokens, first_cached, _), *later = asyncio.run(draw())
    assert tokens > 60 and first_cached < tokens // 2  # the first sample evaluates the prompt
    assert all(cached >= tokens - 1 for _, cached, _ in later)  # the others reuse all of it
    assert all(reason in ("stop", "length") for *_, reason in later)


def test_weighing_answers_agrees_with_greedy_decoding_and_reuses_the_shared_context(workspace: Path) -> None:
    """The micro-questions' fast path: one weighing per question, its most likely answer the greedy reply."""
    import math

    from chrysalis.llm.sampling import question_messages
    from chrysalis.voting.micro import Question

    sampler = Sampler.for_model(f"local:{E2E_MODEL}", load_settings({"workspace": workspace}), max_tokens=8)
    backend = sampler.backend
    shared = "A shop sells apples for 2 coins and pears for 3 coins."
    questions = [
        Question("apple", "How many coins does an apple cost?", ("1", "2", "3", "10"), shared),
        Question("pear", "How many coins does a pear cost?", ("1", "2", "3", "10"), shared),
    ]

    async def weigh() -> list[tuple[list[float], int, int, str]]:
        out = []
        for question in questions:
            odds = await backend.answer_odds(question_messages(question), list(question.answers))  # type: ignore[attr-defined]
            greedy = await backend.complete(question_messages(question), max_tokens=8)  # free, not constrained
            out.append((odds.logprobs, odds.prompt_tokens, odds.cached_tokens, greedy.text.strip()))
        return out

    weighed = asyncio.run(weigh())
    for logprobs, _, _, greedy in weighed:
        assert sum(math.exp(lp) for lp in logprobs) <= 1.0 + 1e-6
        assert greedy == questions[0].answers[max(range(4), key=lambda j: logprobs[j])]
    _, pear_tokens, pear_cached, _ = weighed[1]
    assert 15 <= pear_cached < pear_tokens  # the shared context (about 20 tokens) came from the cache, the question not


def test_a_completion_form_question_is_weighed_with_the_newline_as_its_end(workspace: Path) -> None:
    """A Python REPL transcript: the code model's most likely continuation is the value the line prints."""
    from chrysalis.voting.micro import Question

    sampler = Sampler.for_model(f"local:{E2E_MODEL}", load_settings({"workspace": workspace}), max_tokens=8)
    answerer = sampler.answerer(completion=True)
    shared = ">>> A = [2, 3]\n>>> B = []"
    question = Question("top_of_A", ">>> print(A[0] if A else None)", ("1", "2", "3", "None"), shared)

    async def greedy() -> str:
        return await answerer(question, 0)

    assert asyncio.run(greedy()) == "2"  # voter 0 takes the most likely answer
    with pytest.raises(ValueError, match="must be one token"):
        asyncio.run(sampler.backend.text_odds("x", ["1"], end="\n\nDone"))  # type: ignore[attr-defined]
