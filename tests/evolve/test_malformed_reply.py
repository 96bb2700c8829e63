"""A model whose replies cannot be parsed at all fails the signature (scored, not a crash) in compile."""

from __future__ import annotations

import pytest

import chrysalis as cf
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.llm.text_protocol import TextToolModel


def garbage_model(replies: int) -> TextToolModel:
    return TextToolModel(ScriptedChatBackend(['{"tool": "final_result", "arguments": {"answer": '] * replies))


def test_unparseable_replies_raise_output_validation_error() -> None:
    with pytest.raises(cf.OutputValidationError, match="kept replying with unusable tool calls") as caught:
        cf.Predict("question -> answer: int")(question="2 + 2?", model=garbage_model(3))
    assert caught.value.field is None


def test_compile_scores_unparseable_replies_as_failures_and_finishes() -> None:
    rows = [{"question": f"{i} + 1?", "answer": i + 1} for i in range(2)]
    compiled = cf.compile(
        cf.Predict("question -> answer: int"), rows, model=garbage_model(500), k_demos=0, iterations=0, mutations=(),
        generated=0,
    )  # fmt: skip
    point = compiled.archive.best
    assert point.phenotype.score == 0.0 and point.phenotype.errors == 2
