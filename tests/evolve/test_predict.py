"""Calling a module: structured output, one validation retry, typed errors, prompt layout, stats."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.test import TestModel

import chrysalis
from chrysalis import config
from chrysalis.errors import ModelError
from chrysalis.evolve import predict
from chrysalis.evolve.predict import model_id, render_system
from chrysalis.evolve.signature import InputField, OutputField, Signature
from chrysalis.llm import pricing, providers
from chrysalis.llm.testing import ScriptedModel, Step, final, output_call
from tests.helpers import output_properties, system_prompt, user_prompt

SHORTHAND = "question -> answer: int"


def test_output_is_validated_into_its_type() -> None:
    prediction = chrysalis.Predict(SHORTHAND)(question="2 + 2", model=TestModel())
    assert isinstance(prediction.answer, int)
    assert prediction.stats.model == "test:test"


def test_a_string_number_is_coerced_to_int() -> None:
    fake = ScriptedModel([output_call({"answer": "4"})])
    assert chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model()).answer == 4


def test_a_wrong_type_is_retried_once_with_the_validation_error() -> None:
    fake = ScriptedModel([output_call({"answer": "four"}), output_call({"answer": 4})])
    prediction = chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model())
    assert prediction.answer == 4
    assert prediction.stats.retries == 1
    assert len(fake.seen) == 2
    retry = fake.seen[1][-1]
    assert isinstance(retry, ModelRequest)
    part = retry.parts[0]
    assert isinstance(part, ToolReturnPart)  # the retry answers the output tool call
    feedback = str(part.content)
    assert "answer" in feedback and "valid integer" in feedback and "'four'" in feedback


def test_tokens_of_both_attempts_are_counted() -> None:
    fake = ScriptedModel([output_call({"answer": "four"}), output_call({"answer": 4})])
    stats = chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model()).stats
    assert (stats.input_tokens, stats.output_tokens) == (20, 10)


def test_a_wrong_type_twice_raises_output_validation_error_naming_the_field() -> None:
    fake = ScriptedModel([output_call({"answer": "four"}), output_call({"answer": "still four"})])
    with pytest.raises(chrysalis.OutputValidationError) as raised:
        chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model())
    assert raised.value.field == "answer"
    assert raised.value.value == "still four"
    assert "answer" in str(raised.value)
    assert len(fake.seen) == 2


def test_a_missing_output_field_twice_names_the_field() -> None:
    fake = ScriptedModel([output_call({"reply": 4})])
    with pytest.raises(chrysalis.OutputValidationError) as raised:
        chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model())
    assert raised.value.field == "answer"


def test_a_json_object_written_as_text_is_accepted() -> None:
    fake = ScriptedModel([final('{"answer": 7}')])
    prediction = chrysalis.Predict(SHORTHAND)(question="3 + 4", model=fake.model())
    assert (prediction.answer, prediction.stats.retries) == (7, 0)


def test_prose_without_fields_is_retried_then_raises() -> None:
    fake = ScriptedModel([final("The answer is 7.")])
    with pytest.raises(chrysalis.OutputValidationError) as raised:
        chrysalis.Predict(SHORTHAND)(question="3 + 4", model=fake.model())
    assert raised.value.field is None
    assert len(fake.seen) == 2


def test_an_empty_reply_is_a_model_error() -> None:
    fake = ScriptedModel([Step()])  # a reply with no parts
    with pytest.raises(ModelError, match="empty reply"):
        chrysalis.Predict(SHORTHAND)(question="3 + 4", model=fake.model())


def test_missing_inputs_are_a_value_error_listing_the_expected_ones() -> None:
    module = chrysalis.Predict("question, context -> answer")
    with pytest.raises(ValueError, match=r"takes the inputs \['question', 'context'\]: missing \['context'\]"):
        module(question="?", model=TestModel())


def test_unknown_inputs_are_a_value_error_listing_the_expected_ones() -> None:
    with pytest.raises(ValueError, match=r"takes the inputs \['question'\]: unknown \['query'\]"):
        chrysalis.Predict(SHORTHAND)(question="?", query="?", model=TestModel())


def test_chain_of_thought_puts_reasoning_on_the_prediction_not_in_its_outputs() -> None:
    fake = ScriptedModel([output_call({"reasoning": "two and two make four", "answer": 4})])
    prediction = chrysalis.ChainOfThought(SHORTHAND)(question="2 + 2", model=fake.model())
    assert prediction.reasoning == "two and two make four"
    assert prediction.to_dict() == {"answer": 4}
    assert output_properties(fake.infos[0]) == ["reasoning", "answer"]
    assert "- reasoning (str)" in system_prompt(fake.seen[0])


def test_predict_asks_for_no_reasoning() -> None:
    fake = ScriptedModel([output_call({"answer": 4})])
    prediction = chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model())
    assert prediction.reasoning is None
    assert output_properties(fake.infos[0]) == ["answer"]


def test_a_missing_field_on_the_prediction_is_an_attribute_error_listing_fields() -> None:
    prediction = chrysalis.Predict(SHORTHAND)(
        question="2 + 2", model=ScriptedModel([output_call({"answer": 4})]).model()
    )
    with pytest.raises(AttributeError, match=r"no field 'answr'.*\['answer'\]"):
        _ = prediction.answr


def test_instructions_descriptions_and_demos_are_in_the_system_prompt() -> None:
    class Sum(Signature):
        """Add the numbers."""

        question: str = InputField(desc="two numbers and a plus")
        answer: int = OutputField(desc="just the number")

    fake = ScriptedModel([output_call({"answer": 5})])
    module = chrysalis.Predict(Sum, demos=[{"question": "1 + 1", "answer": 2}, {"question": "2 + 5", "answer": 7}])
    module(question="2 + 3", model=fake.model())
    system = system_prompt(fake.seen[0])
    assert system == render_system(module)
    assert system.startswith("Add the numbers.")
    assert "- question (str): two numbers and a plus" in system
    assert "- answer (int): just the number" in system
    assert "Example 1:\nquestion: 1 + 1\nanswer: 2" in system
    assert "Example 2:\nquestion: 2 + 5\nanswer: 7" in system
    assert user_prompt(fake.seen[0]) == "question: 2 + 3"


def test_the_system_prompt_is_the_same_for_every_input() -> None:
    fake = ScriptedModel([output_call({"answer": 0})])
    module = chrysalis.Predict("a: int, b: list[int] -> answer: int", demos=[{"a": 1, "b": [2], "answer": 3}])
    module(a=1, b=[2, 3], model=fake.model())
    module(a=40, b=[], model=fake.model())
    first, second = fake.seen
    assert system_prompt(first) == system_prompt(second)
    assert (user_prompt(first), user_prompt(second)) == ("a: 1\nb: [2, 3]", "a: 40\nb: []")


def test_params_become_model_settings() -> None:
    fake = ScriptedModel([output_call({"answer": 1})])
    module = chrysalis.Predict(SHORTHAND, params={"temperature": 0.5, "max_tokens": 20})
    module(question="?", model=fake.model())
    assert [info.model_settings for info in fake.infos] == [{"temperature": 0.5, "max_tokens": 20}]


def test_the_module_model_is_used_and_a_call_model_wins() -> None:
    own, other = ScriptedModel([output_call({"answer": 1})]), ScriptedModel([output_call({"answer": 2})])
    module = chrysalis.Predict(SHORTHAND, model=own.model())
    assert module(question="?").answer == 1
    assert module(question="?", model=other.model()).answer == 2
    assert (len(own.seen), len(other.seen)) == (1, 1)


def test_the_settings_model_is_used_when_none_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHRYSALIS_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setattr(predict, "_models", {})
    fake = ScriptedModel([output_call({"answer": 9})])
    built: list[str] = []

    def build_model(settings: config.Settings, **_: Any) -> FunctionModel:
        built.append(settings.model)
        return fake.model()

    monkeypatch.setattr(providers, "build_model", build_model)
    module = chrysalis.Predict(SHORTHAND)
    assert module(question="4 + 5").answer == 9
    assert module(question="1 + 8").answer == 9
    assert built == ["openai:gpt-4o-mini"]  # built once, then reused


def test_stats_price_the_tokens_for_a_priced_model() -> None:
    model = ScriptedModel([output_call({"answer": 4}, input_tokens=1000, output_tokens=200)], name="gpt-4o").model()
    stats = chrysalis.Predict(SHORTHAND)(question="2 + 2", model=model).stats
    assert stats.model == model_id(model) == "function:gpt-4o"
    assert stats.tokens == 1200
    assert stats.cost_usd == pricing.cost_usd("function:gpt-4o", 1000, 200)
    assert stats.cost_usd > 0
    assert stats.latency_ms >= 0


def test_an_unpriced_model_costs_nothing() -> None:
    fake = ScriptedModel([output_call({"answer": 4})])
    assert chrysalis.Predict(SHORTHAND)(question="2 + 2", model=fake.model()).stats.cost_usd == 0.0


def test_acall_runs_inside_an_event_loop() -> None:
    fake = ScriptedModel([output_call({"answer": 4})])
    module = chrysalis.Predict(SHORTHAND)

    async def two_calls() -> list[int]:
        first, second = await asyncio.gather(
            module.acall(question="2 + 2", model=fake.model()), module.acall(question="1 + 3", model=fake.model())
        )
        return [first.answer, second.answer]

    assert asyncio.run(two_calls()) == [4, 4]
