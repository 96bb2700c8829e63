"""bench/compaction.py end to end on a fake model that answers from what it is shown (never asserts on time)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.capabilities.compaction.summary import SUMMARY_INSTRUCTIONS, estimate_tokens
from tests.helpers import load_bench_module

bench = load_bench_module("compaction")
Reply = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def reader(summarise: Callable[[str], str]) -> Reply:
    """Summarises with ``summarise``; answers with the port and the key it can see anywhere in its prompt."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts = [str(p.content) for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
        if info.instructions == SUMMARY_INSTRUCTIONS:
            return ModelResponse(parts=[TextPart(summarise(prompts[-1]))])
        seen = "\n".join([info.instructions or "", *prompts])
        port = re.search(r"port =? ?(\d+)", seen)
        key = re.search(r"key(?:_name =| is named) \"?([a-z]+-[a-z]+)", seen)
        answer = f"Port {port.group(1)}, deploy key {key.group(1)}." if port and key else "I do not know."
        return ModelResponse(parts=[TextPart(answer)])

    return reply


def keeps_facts(transcript: str) -> str:
    """A summariser that keeps every line naming a port or a key."""
    return " ".join(line for line in transcript.splitlines() if "port" in line or "key" in line)


def forgets(transcript: str) -> str:
    return "The user asked about many modules; each defines small arithmetic helpers."


def run_trial(summarise: Callable[[str], str], workspace: Path, source: str, compact_at: float) -> dict[str, Any]:
    model = FunctionModel(reader(summarise))
    return asyncio.run(bench.trial(model, "local:qwen2.5-coder-0.5b", workspace, bench.NEEDLES[0], source, compact_at))


@pytest.mark.parametrize("source", ["user", "tool"])
def test_a_long_history_is_compacted_and_the_needle_is_answered_from_the_summary(workspace: Path, source: str) -> None:
    row = run_trial(keeps_facts, workspace, source, 0.7)
    assert row["compacted"] and row["tokens_after"] < row["tokens_before"] / 3
    assert row["model_summary_has_needle"] and row["needle_kept"], row
    kept = run_trial(keeps_facts, workspace, source, 0.95)
    assert not kept["compacted"] and kept["tokens_after"] == kept["tokens_before"]


def test_the_user_needle_survives_a_summary_that_drops_it_and_the_tool_needle_does_not(workspace: Path) -> None:
    """Why the bench has two sources: the user's words are copied beside the summary, a tool result is not."""
    said = run_trial(forgets, workspace, "user", 0.7)
    assert said["needle_kept"] and said["summary_has_needle"] and not said["model_summary_has_needle"], said
    read = run_trial(forgets, workspace, "tool", 0.7)
    assert read["compacted"] and not read["needle_kept"] and not read["summary_has_needle"], read


@pytest.mark.parametrize("source", ["user", "tool"])
def test_the_conversation_fills_what_is_asked_and_turn_1_holds_the_needle_as_its_source_says(source: str) -> None:
    needle = bench.NEEDLES[0]
    messages = bench.conversation(needle, 3000, source)
    assert 3000 <= estimate_tokens(messages) < 3600
    first = messages[0].parts[0]
    assert isinstance(first, UserPromptPart)
    turn_1 = [str(p.content) for m in messages[:4] for p in m.parts if hasattr(p, "content")]
    users_words = str(first.content)
    assert (needle.key in users_words) is (source == "user")
    assert any(needle.key in text for text in turn_1)


def test_the_summary_counts_needles_per_mode_and_source() -> None:
    rows = [
        {
            "compact_at": 0.7,
            "source": "user",
            "needle_kept": True,
            "model_summary_has_needle": False,
            "tokens_after": 10,
            "seconds": 1.0,
        },
        {
            "compact_at": 0.7,
            "source": "tool",
            "needle_kept": False,
            "model_summary_has_needle": False,
            "tokens_after": 20,
            "seconds": 3.0,
        },
        {
            "compact_at": 0.7,
            "source": "tool",
            "needle_kept": True,
            "model_summary_has_needle": True,
            "tokens_after": 30,
            "seconds": 5.0,
        },
    ]
    summary = bench.summarise(rows)
    assert list(summary) == ["compacted"]
    assert summary["compacted"]["user"]["needle_kept"] == 1
    assert summary["compacted"]["tool"] == {
        "trials": 2,
        "needle_kept": 1,
        "model_summary_has_needle": 1,
        "mean_tokens_after": 25,
        "mean_seconds": 4.0,
    }
