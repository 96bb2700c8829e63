"""Signatures: the class form (string annotations, as here), the shorthand, and their round trips."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest

from chrysalis.evolve.signature import InputField, OutputField, Signature, as_signature, parse_type, type_text


class QA(Signature):
    """Answer the question
    with a whole number."""

    question: str = InputField(desc="a sum such as '2 + 3'")
    context: list[str] = InputField()
    answer: int = OutputField(desc="just the number")
    confidence: Literal["low", "high"] = OutputField()


def test_class_form_takes_the_docstring_as_instructions() -> None:
    assert QA.instructions == "Answer the question\nwith a whole number."


def test_class_form_keeps_declaration_order_and_sides() -> None:
    assert [f.name for f in QA.fields] == ["question", "context", "answer", "confidence"]
    assert [f.name for f in QA.input_fields()] == ["question", "context"]
    assert [f.name for f in QA.output_fields()] == ["answer", "confidence"]


def test_class_form_resolves_string_annotations_to_types() -> None:
    assert [f.annotation for f in QA.fields] == [str, list[str], int, Literal["low", "high"]]


def test_class_form_keeps_descriptions() -> None:
    assert [f.desc for f in QA.fields] == ["a sum such as '2 + 3'", "", "just the number", ""]


def test_class_without_docstring_gets_instructions_naming_its_fields() -> None:
    class Bare(Signature):
        text: str = InputField()
        summary: str = OutputField()

    assert Bare.instructions == "Given the fields `text`, produce the fields `summary`."


def test_class_with_only_inputs_is_refused_when_defined() -> None:
    with pytest.raises(ValueError, match="at least one input field and one output field"):

        class OnlyInputs(Signature):
            text: str = InputField()


def test_class_with_a_reasoning_output_is_refused() -> None:
    with pytest.raises(ValueError, match="'reasoning' is reserved"):

        class Reasons(Signature):
            text: str = InputField()
            reasoning: str = OutputField()


def test_a_signature_cannot_be_instantiated() -> None:
    with pytest.raises(TypeError, match=r"pass the class to Predict"):
        QA()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("question -> answer", {"question": str, "answer": str}),
        ("a, b: int -> total: int", {"a": str, "b": int, "total": int}),
        ("numbers: list[int] -> total: float", {"numbers": list[int], "total": float}),
        ("scores: dict[str, float] -> best", {"scores": dict[str, float], "best": str}),
        ("text -> label: Literal['spam', 'ham']", {"text": str, "label": Literal["spam", "ham"]}),
        ("question -> answer: int | None", {"question": str, "answer": int | None}),
        ("flag: bool -> rows: list[dict[str, int]]", {"flag": bool, "rows": list[dict[str, int]]}),
        ("  spaced  ,  x : list[ str ]  ->  y  ", {"spaced": str, "x": list[str], "y": str}),
    ],
)
def test_shorthand_parses_names_and_types(text: str, expected: dict[str, object]) -> None:
    sig = Signature.parse(text)
    assert {f.name: f.annotation for f in sig.fields} == expected


def test_shorthand_puts_fields_on_their_side_of_the_arrow() -> None:
    sig = Signature.parse("a, b: int -> total: int")
    assert [f.name for f in sig.input_fields()] == ["a", "b"]
    assert [f.name for f in sig.output_fields()] == ["total"]


def test_shorthand_takes_instructions_and_a_name() -> None:
    sig = Signature.parse("question -> answer", "Answer briefly.", name="Brief")
    assert (sig.__name__, sig.instructions) == ("Brief", "Answer briefly.")


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("question answer", "'question answer'"),
        ("a -> b -> c", "'a -> b -> c'"),
        (" -> answer", "no inputs"),
        ("question -> ", "no outputs"),
        ("1st -> answer", "'1st'"),
        ("question -> class", "'class'"),
        ("my-field -> answer", "'my-field'"),
        ("a, a -> b", "'a' appears twice"),
        ("a -> a", "'a' appears twice"),
        ("question -> answer: integer", "'integer'"),
        ("question -> answer: list[int", "'list[int'"),
        ("question -> answer: dict[int, str]", "'dict[int, str]'"),
        ("question -> answer: Literal[maybe]", "'maybe'"),
        ("question -> reasoning", "'reasoning'"),
    ],
)
def test_bad_shorthand_is_a_value_error_quoting_the_bad_part(text: str, quoted: str) -> None:
    with pytest.raises(ValueError, match=re.escape(quoted)):
        Signature.parse(text)


def test_unknown_type_lists_the_allowed_types() -> None:
    with pytest.raises(ValueError, match="field 'answer' has type 'integer'") as raised:
        Signature.parse("question -> answer: integer")
    message = str(raised.value)
    assert "'answer'" in message
    assert "list[T]" in message and "Literal['a', 'b']" in message


@pytest.mark.parametrize(
    "annotation",
    [str, int, float, bool, list[int], dict[str, list[float]], Literal["a", "b"], Literal[1, True], int | None],
)
def test_type_text_and_parse_type_are_inverse(annotation: object) -> None:
    assert parse_type(type_text(annotation)) == annotation


def test_spec_round_trip_rebuilds_an_equivalent_class_signature() -> None:
    rebuilt = Signature.from_spec(QA.to_spec())
    assert rebuilt.__name__ == "QA"
    assert rebuilt.instructions == QA.instructions
    assert rebuilt.fields == QA.fields
    assert rebuilt.to_spec() == QA.to_spec()


def test_spec_round_trip_of_a_shorthand() -> None:
    sig = Signature.parse("scores: dict[str, float], k: int | None -> picked: list[Literal['x', 'y']]")
    assert Signature.from_spec(sig.to_spec()).fields == sig.fields


def test_shorthand_of_a_class_parses_back_to_the_same_fields() -> None:
    assert Signature.parse(QA.shorthand()).fields == tuple(
        type(f)(f.name, f.annotation, "", f.is_input) for f in QA.fields
    )


def test_with_instructions_makes_a_new_signature_and_leaves_the_original() -> None:
    brief = QA.with_instructions("Be brief.")
    assert brief.instructions == "Be brief."
    assert brief.fields == QA.fields
    assert brief is not QA
    assert QA.instructions == "Answer the question\nwith a whole number."


def test_as_signature_accepts_a_class_or_a_shorthand() -> None:
    assert as_signature(QA) is QA
    assert [f.name for f in as_signature("q -> a").fields] == ["q", "a"]


@pytest.mark.parametrize("value", [42, Signature, int, None])
def test_as_signature_rejects_anything_else_with_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match="Signature subclass or a shorthand"):
        as_signature(value)


def test_output_model_validates_and_puts_reasoning_first_for_chain_of_thought() -> None:
    model = QA.output_model(reasoning=True)
    assert list(model.model_fields) == ["reasoning", "answer", "confidence"]
    assert model.model_validate({"reasoning": "r", "answer": "4", "confidence": "low"}).model_dump()["answer"] == 4
    with pytest.raises(ValueError, match="confidence"):
        model.model_validate({"reasoning": "r", "answer": 4, "confidence": "medium"})


def test_a_subclass_extends_its_parents_fields() -> None:
    class Base(Signature):
        question: str = InputField()
        answer: str = OutputField()

    class WithContext(Base):
        context: str = InputField()

    assert WithContext.shorthand() == "question, context -> answer"


def test_an_annotation_without_a_field_marker_is_an_error() -> None:
    with pytest.raises(TypeError, match=r"Forgot.question is annotated but not a field"):

        class Forgot(Signature):
            question: str
            answer: str = OutputField()


def test_literal_values_may_hold_commas() -> None:
    sig = Signature.parse("q -> label: Literal['a, b', 'c']")
    assert sig.output_fields()[0].type_text == "Literal['a, b', 'c']"
