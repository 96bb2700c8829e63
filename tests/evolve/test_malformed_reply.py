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


def test_unparseable_replies_are_paid_for() -> None:
    # Every try (the first reply and its corrections) cost prompt and output tokens.
    with pytest.raises(cf.OutputValidationError) as caught:
        cf.Predict("question -> answer: int")(question="2 + 2?", model=garbage_model(3))
    assert caught.value.input_tokens > 0 and caught.value.output_tokens >= 3 * 12


def test_compile_scores_unparseable_replies_as_failures_and_finishes() -> None:
    rows = [{"question": f"{i} + 1?", "answer": i + 1} for i in range(2)]
    compiled = cf.compile(
        cf.Predict("question -> answer: int"),
        rows,
        model=garbage_model(500),
        k_demos=0,
        iterations=0,
        mutations=(),
        generated=0,
    )
    point = compiled.archive.best
    assert point.phenotype.score == 0.0 and point.phenotype.errors == 2


def test_a_reply_cut_off_inside_a_string_is_not_retried_identically() -> None:
    backend = ScriptedChatBackend(
        ['{"tool": "final_result", "arguments": {"answer": "4}}....'] * 3, supports_json_schema=True
    )
    model = TextToolModel(backend)
    with pytest.raises(cf.OutputValidationError, match="ran out of tokens"):
        cf.Predict("question -> answer: int", params={"max_tokens": 5})(question="2 + 2?", model=model)
    assert len(backend.calls) == 1


def test_one_string_output_falls_back_to_plain_text_when_the_json_is_cut_off() -> None:
    cut = '{"tool": "final_result", "arguments": {"output": "{\'a\': 1}\'}}....'
    backend = ScriptedChatBackend([cut, "{'a': 1}"], supports_json_schema=True)
    prediction = cf.Predict("code -> output", params={"max_tokens": 5})(code="f()", model=TextToolModel(backend))
    assert prediction.output == "{'a': 1}"
    assert "Reply with the value of output only" in backend.calls[1][-1].content
    assert backend.schemas[1] is None  # the second request is not constrained to a tool call
