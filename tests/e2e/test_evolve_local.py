"""Signatures and compile on the real embedded model: typed output, a real (tiny) compile and archive."""

from __future__ import annotations

import pytest

import chrysalis as cf
from chrysalis.evolve.signature import InputField, OutputField, Signature
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]


class Sum(Signature):
    """Add the two numbers."""

    question: str = InputField()
    answer: int = OutputField(desc="just the number")


def test_predict_returns_a_typed_answer_on_the_embedded_model() -> None:
    prediction = cf.Predict(Sum, model=f"local:{E2E_MODEL}")(question="What is 2 + 2?")
    assert isinstance(prediction.answer, int)  # constrained decoding: the schema's type, always
    assert prediction.stats.input_tokens > 0 and prediction.stats.model == f"local:{E2E_MODEL}"


def test_a_small_compile_on_the_embedded_model_makes_a_usable_archive() -> None:
    rows = [{"question": f"{a} + {a + 3}", "answer": 2 * a + 3} for a in range(10, 14)]
    compiled = cf.compile(
        cf.Predict(Sum),
        rows,
        model=f"local:{E2E_MODEL}",
        rollouts=8,  # the base module and one variant on the dev rows: enough for an archive, in minutes
        k_demos=1,
        iterations=1,
        children=1,
        mutations=("Be concise.",),
        generated=0,
    )
    archive = compiled.archive
    assert archive.points and archive.meta["rollouts"] <= 8 and archive.version == 1
    assert compiled.choose("cheap").point in archive.points
    assert isinstance(compiled(question="1 + 2", priority="best").answer, int)
