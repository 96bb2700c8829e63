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
