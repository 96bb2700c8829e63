"""The reflective meta-optimizer: failures rendered for the proposer, proposals checked before use."""

from __future__ import annotations

import asyncio

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.evolve.module import Predict
from chrysalis.evolve.reflect import describe_failures, propose
from tests.helpers import reply, system_prompt, user_prompt

MODULE = Predict("question -> answer: int", instructions="Add.")


def proposing(text: str) -> FunctionModel:
    """A meta model that proposes ``text`` as the new instructions."""

    def meta(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return reply({"new_instructions": text})

    return FunctionModel(meta)


def test_failures_show_inputs_expected_and_what_the_model_gave() -> None:
    text = describe_failures(
        [
            {"example": {"question": "1 + 2", "answer": 3}, "output": {"answer": 4}, "error": None},
            {"example": {"question": "2 + 2", "answer": 4}, "output": None, "error": "answer: not an int"},
        ],
        ["question"],
        ["answer"],
    )
    assert text == (
        "Example 1:\n  question: 1 + 2\n  expected answer: 3\n  model gave answer: 4\n"
        "Example 2:\n  question: 2 + 2\n  expected answer: 4\n  error: answer: not an int"
    )


def test_long_values_are_shortened() -> None:
    text = describe_failures([{"example": {"q": "x" * 1000, "a": 1}, "output": {"a": 2}}], ["q"], ["a"])
    assert max(len(line) for line in text.splitlines()) < 320
    assert "..." in text


def test_propose_asks_the_meta_model_with_the_task_and_failures() -> None:
    seen: list[tuple[str, str]] = []

    def meta(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((system_prompt(messages), user_prompt(messages)))
        return reply({"new_instructions": "  Add the two numbers exactly.  "})

    text, stats = asyncio.run(propose(MODULE, "Example 1: ...", model=FunctionModel(meta)))
    assert text == "Add the two numbers exactly."
    assert stats.tokens == 15
    system, user = seen[0]
    assert system.startswith("You improve the instructions")
    assert user == "task: question -> answer: int\ncurrent_instructions: Add.\nfailures: Example 1: ..."


def test_a_proposal_equal_to_the_current_instructions_or_empty_is_unusable() -> None:
    for proposal in ("Add.", "   ", "x" * 2000):
        assert asyncio.run(propose(MODULE, "", model=proposing(proposal)))[0] is None
