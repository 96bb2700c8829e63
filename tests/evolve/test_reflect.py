"""The reflective meta-optimizer: failures rendered for the proposer, proposals checked before use."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai.models.function import FunctionModel

from chrysalis.evolve.module import Predict
from chrysalis.evolve.reflect import describe_failures, propose
from chrysalis.llm.testing import ScriptedModel, output_call
from tests.helpers import system_prompt, user_prompt

MODULE = Predict("question -> answer: int", instructions="Add.")


def proposing(text: str) -> FunctionModel:
    """A meta model that proposes ``text`` as the new instructions."""
    return ScriptedModel([output_call({"new_instructions": text})]).model()


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
    meta = ScriptedModel([output_call({"new_instructions": "  Add the two numbers exactly.  "})])
    text, stats = asyncio.run(propose(MODULE, "Example 1: ...", model=meta.model()))
    assert text == "Add the two numbers exactly."
    assert stats.tokens == 15
    system, user = system_prompt(meta.seen[0]), user_prompt(meta.seen[0])
    assert system.startswith("You improve the instructions")
    assert user == "task: question -> answer: int\ncurrent_instructions: Add.\nfailures: Example 1: ..."


@pytest.mark.parametrize("proposal", ["Add.", "   ", "x" * 2000], ids=["unchanged", "blank", "too-long"])
def test_a_proposal_equal_to_the_current_instructions_or_empty_is_unusable(proposal: str) -> None:
    assert asyncio.run(propose(MODULE, "", model=proposing(proposal)))[0] is None
