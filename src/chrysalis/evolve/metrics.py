"""Metrics: how well a prediction matches an example, from 0.0 (wrong) to 1.0 (right).

Built in: ``exact`` (every output field equal, strings compared without case and surrounding
space), ``f1`` (token overlap, SQuAD-style, averaged over the output fields) and ``json`` (the
outputs equal as JSON values: key order and number spelling do not matter). A custom metric is any
function ``metric(example, prediction) -> float | bool`` taking two dicts, the DSPy convention.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chrysalis.errors import MetricError

__all__ = ["METRICS", "MetricFn", "resolve_metric", "score_prediction"]

MetricFn = Callable[[Mapping[str, Any], Mapping[str, Any]], Any]


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    return value


def _exact(fields: Sequence[str]) -> MetricFn:
    def exact(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        return float(all(_normal(example[f]) == _normal(prediction.get(f)) for f in fields))

    return exact


_WORD = re.compile(r"\w+")


def _tokens(value: Any) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value)
    return _WORD.findall(text.casefold())


def _f1_one(expected: Any, got: Any) -> float:
    want, have = _tokens(expected), _tokens(got)
    if not want or not have:
        return float(want == have)
    common = sum((Counter(want) & Counter(have)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(have), common / len(want)
    return 2 * precision * recall / (precision + recall)


def _f1(fields: Sequence[str]) -> MetricFn:
    def f1(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        return sum(_f1_one(example[f], prediction.get(f)) for f in fields) / len(fields)

    return f1


def _as_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return json.loads(json.dumps(value))


def _json(fields: Sequence[str]) -> MetricFn:
    def json_equal(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        return float(all(_as_json(example[f]) == _as_json(prediction.get(f)) for f in fields))

    return json_equal


METRICS: dict[str, Callable[[Sequence[str]], MetricFn]] = {"exact": _exact, "f1": _f1, "json": _json}


def resolve_metric(metric: str | MetricFn, output_fields: Sequence[str]) -> tuple[str, MetricFn]:
    """The metric's name (for records and the compile key) and the function to call.

    Raises:
        ValueError: ``metric`` is neither a built-in name nor a function; the message lists both.
    """
    if isinstance(metric, str):
        factory = METRICS.get(metric)
        if factory is None:
            raise ValueError(
                f"metric {metric!r} is unknown; use one of {', '.join(METRICS)} or a function "
                f"metric(example, prediction) -> float"
            )
        return metric, factory(list(output_fields))
    if callable(metric):
        name = getattr(metric, "__qualname__", None) or type(metric).__name__
        return f"custom:{name}", metric
    raise ValueError(f"metric must be a name ({', '.join(METRICS)}) or a function, got {metric!r}")


def score_prediction(
    name: str, fn: MetricFn, example: Mapping[str, Any], prediction: Mapping[str, Any], where: str
) -> float:
    """Call the metric and turn its answer into a float.

    Raises:
        MetricError: the metric raised or returned something that is not a number; the message names
            the metric and ``where`` (e.g. "dev example 3"), so the user can reproduce it.
    """
    try:
        value = fn(example, prediction)
    except Exception as exc:
        raise MetricError(
            f"The metric {name!r} raised {type(exc).__name__}: {exc} on {where} "
            f"(example {dict(example)!r}, prediction {dict(prediction)!r}). Fix the metric; "
            f"finished steps are kept, so rerunning the same compile resumes."
        ) from exc
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    raise MetricError(f"The metric {name!r} returned {value!r} on {where}; it must return a number or a bool.")
