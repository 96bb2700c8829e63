"""bench/compaction.py end to end on a fake model that answers from what it is shown (never asserts on time)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.capabilities.compaction.summary import SUMMARY_INSTRUCTIONS
from tests.helpers import load_bench_module

bench = load_bench_module("compaction")


def reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Summarises to the lines that name a port; answers with the first port fact it can see anywhere."""
    prompts = [str(p.content) for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
    if info.instructions == SUMMARY_INSTRUCTIONS:
        return ModelResponse(parts=[TextPart(" ".join(line for line in prompts[-1].splitlines() if "port" in line))])
    seen = "\n".join([info.instructions or "", *prompts])
    fact = re.search(r"port \d+ and the deploy key is named [\w-]+", seen)
    return ModelResponse(parts=[TextPart(fact.group(0) if fact else "I do not know.")])


def test_a_long_history_is_compacted_and_the_needle_is_answered_from_the_summary(workspace: Path) -> None:
    needle, found = bench.NEEDLES[0]
    row = asyncio.run(bench.trial(FunctionModel(reader), "local:qwen2.5-coder-0.5b", workspace, needle, found, 0.7))
    assert row["compacted"] and row["tokens_after"] < row["tokens_before"] / 3
    assert row["summary_has_needle"] and row["needle_kept"], row
    kept = asyncio.run(bench.trial(FunctionModel(reader), "local:qwen2.5-coder-0.5b", workspace, needle, found, 0.95))
    assert not kept["compacted"] and kept["tokens_after"] == kept["tokens_before"]


def test_the_conversation_fills_what_is_asked_and_starts_with_the_needle() -> None:
    messages = bench.conversation("the needle", 3000)
    first = messages[0].parts[0]
    assert isinstance(first, UserPromptPart) and "the needle" in str(first.content)
    from chrysalis.capabilities.compaction.summary import estimate_tokens

    assert 3000 <= estimate_tokens(messages) < 3600
