"""Metrics: built-ins by name, custom functions, and errors that name the example."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import chrysalis
from chrysalis.evolve.metrics import resolve_metric, score_prediction


def metric(name: str, *fields: str) -> Any:
    return resolve_metric(name, list(fields) or ["answer"])[1]


@pytest.mark.parametrize(
    ("expected", "got", "score"),
    [
        ("Paris", "Paris", 1.0),
        ("Paris", "  paris ", 1.0),
        ("New  York", "new york", 1.0),
        ("Paris", "London", 0.0),
        (4, 4, 1.0),
        (4, 5, 0.0),
        ([1, 2], [1, 2], 1.0),
    ],
)
def test_exact_ignores_case_and_surrounding_space(expected: Any, got: Any, score: float) -> None:
    assert metric("exact")({"answer": expected}, {"answer": got}) == score


def test_exact_needs_every_output_field() -> None:
    exact = metric("exact", "city", "country")
    assert exact({"city": "Paris", "country": "France"}, {"city": "paris", "country": "FRANCE"}) == 1.0
    assert exact({"city": "Paris", "country": "France"}, {"city": "Paris", "country": "Spain"}) == 0.0


def test_exact_counts_a_missing_field_as_wrong() -> None:
    assert metric("exact")({"answer": "x"}, {}) == 0.0


@pytest.mark.parametrize(
    ("expected", "got", "score"),
    [
        ("the cat sat", "the cat sat", 1.0),
        ("the cat sat", "The CAT", 0.8),  # precision 1, recall 2/3
        ("the cat", "the cat sat down", 2 / 3),  # precision 1/2, recall 1
        ("the cat", "a dog", 0.0),
        ("", "", 1.0),
        ("cat", "", 0.0),
    ],
)
def test_f1_is_token_overlap(expected: str, got: str, score: float) -> None:
    assert metric("f1")({"answer": expected}, {"answer": got}) == pytest.approx(score)


def test_f1_averages_over_output_fields() -> None:
    f1 = metric("f1", "a", "b")
    assert f1({"a": "x y", "b": "z"}, {"a": "x y", "b": "w"}) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("expected", "got", "score"),
    [
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, 1.0),
        ({"a": 1, "b": [1, 2]}, '{"b": [1, 2], "a": 1}', 1.0),
        ('{"a": 1.0}', {"a": 1}, 1.0),
        ({"a": 1}, {"a": 2}, 0.0),
        ([1, 2], [2, 1], 0.0),
        ("plain text", "plain text", 1.0),
    ],
)
def test_json_compares_values_not_spelling(expected: Any, got: Any, score: float) -> None:
    assert metric("json")({"answer": expected}, {"answer": got}) == score


def test_a_function_is_a_custom_metric_named_after_it() -> None:
    def close_enough(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> bool:
        return bool(abs(example["answer"] - prediction["answer"]) <= 1)

    name, fn = resolve_metric(close_enough, ["answer"])
    assert name.startswith("custom:") and name.endswith("close_enough")
    assert score_prediction(name, fn, {"answer": 4}, {"answer": 5}, "dev example 0") == 1.0
    assert score_prediction(name, fn, {"answer": 4}, {"answer": 7}, "dev example 0") == 0.0


def test_an_unknown_metric_name_lists_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="metric 'accuracy' is unknown; use one of exact, f1, json or a function"):
        resolve_metric("accuracy", ["answer"])


NOT_A_METRIC: Any = 3
"""What a caller without a type checker might pass."""


def test_a_metric_that_is_neither_name_nor_function_is_refused() -> None:
    with pytest.raises(ValueError, match=r"a name \(exact, f1, json\) or a function, got 3"):
        resolve_metric(NOT_A_METRIC, ["answer"])


def test_a_metric_that_raises_is_a_metric_error_naming_the_example() -> None:
    def broken(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        return 1 / 0

    with pytest.raises(chrysalis.MetricError) as raised:
        score_prediction("custom:broken", broken, {"answer": 4}, {"answer": 5}, "dev example 3")
    message = str(raised.value)
    assert "ZeroDivisionError" in message and "dev example 3" in message
    assert "{'answer': 4}" in message
    assert isinstance(raised.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("value", [None, "1.0", [1.0]])
def test_a_metric_returning_a_non_number_is_a_metric_error(value: Any) -> None:
    with pytest.raises(chrysalis.MetricError, match=r"returned .* on train example 2; it must return a number"):
        score_prediction("custom:odd", lambda e, p: value, {"answer": 4}, {"answer": 4}, "train example 2")
