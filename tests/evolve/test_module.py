"""Modules are immutable values whose id is a hash of their content."""

from __future__ import annotations

from typing import Any

import pytest

from chrysalis.evolve.module import ChainOfThought, Module, Predict
from chrysalis.evolve.signature import InputField, OutputField, Signature

SHORTHAND = "question -> answer: int"
DEMO = {"question": "1 + 1", "answer": 2}


def test_equal_content_gives_equal_ids() -> None:
    assert Predict(SHORTHAND, demos=[DEMO]).id == Predict(SHORTHAND, demos=[dict(DEMO)]).id


def test_the_model_is_not_part_of_the_id() -> None:
    assert Predict(SHORTHAND, model="openai:gpt-4o-mini").id == Predict(SHORTHAND).id


@pytest.mark.parametrize(
    "change",
    [
        {"instructions": "Answer with digits only."},
        {"demos": [DEMO]},
        {"strategy": "chain-of-thought"},
        {"params": {"temperature": 0.7}},
    ],
)
def test_changing_what_the_prompt_holds_changes_the_id(change: dict[str, Any]) -> None:
    base = Predict(SHORTHAND)
    assert base.replace(**change).id != base.id


def test_chain_of_thought_is_a_module_with_the_other_strategy() -> None:
    assert ChainOfThought(SHORTHAND).id == Predict(SHORTHAND).replace(strategy="chain-of-thought").id


def test_replace_returns_a_new_module_and_leaves_the_original() -> None:
    base = Predict(SHORTHAND, instructions="Add.")
    child = base.replace(demos=[DEMO])
    assert child is not base
    assert (child.instructions, child.demos) == ("Add.", (DEMO,))
    assert base.demos == ()


def test_replace_rejects_unknown_fields_naming_them() -> None:
    with pytest.raises(TypeError, match="'instruction'"):
        Predict(SHORTHAND).replace(instruction="typo")


def test_a_demo_lacking_a_field_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"demo 1 .* \['answer'\]"):
        Predict(SHORTHAND, demos=[DEMO, {"question": "2 + 2"}])


def test_demos_keep_only_the_signature_fields() -> None:
    module = Predict(SHORTHAND, demos=[{**DEMO, "note": "ignored"}])
    assert module.demos == (DEMO,)


UNTYPED_STRATEGY: Any = "react"
"""What a caller without a type checker might pass."""


def test_an_unknown_strategy_is_a_value_error_listing_the_strategies() -> None:
    with pytest.raises(ValueError, match="'react' is not one of predict, chain-of-thought"):
        Module(SHORTHAND, strategy=UNTYPED_STRATEGY)


def test_a_signature_without_fields_is_refused() -> None:
    class Empty(Signature):
        """Nothing declared."""

    with pytest.raises(ValueError, match="declares no fields"):
        Predict(Empty)


def test_instructions_default_to_the_signature_and_may_be_overridden() -> None:
    class Sum(Signature):
        """Add the numbers."""

        question: str = InputField()
        answer: int = OutputField()

    assert Predict(Sum).instructions == "Add the numbers."
    assert Predict(Sum, instructions="Be terse.").instructions == "Be terse."
    assert Sum.instructions == "Add the numbers."


def test_spec_round_trip_keeps_the_id() -> None:
    module = ChainOfThought(SHORTHAND, instructions="Add.", demos=[DEMO], params={"max_tokens": 50})
    assert Module.from_spec(module.to_spec()).id == module.id
