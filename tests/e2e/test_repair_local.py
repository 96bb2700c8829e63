"""Repair on the real embedded model: the generate-and-validate path fixes a one-line bug with a one-line diff."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.llm.sampling import Sampler
from chrysalis.repair import RepairConfig, Repairer
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]


def test_repair_fixes_a_one_line_bug_with_a_clean_diff_on_the_embedded_model(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "model": f"local:{E2E_MODEL}"})
    sampler = Sampler.for_model(f"local:{E2E_MODEL}", settings, max_tokens=256)
    config = RepairConfig("python -m pytest -q -p no:cacheprovider", samples=6, max_samples=24)
    report = asyncio.run(Repairer(workspace, sampler, config).run())
    assert report.success and report.applied, report.problem
    assert (workspace / "calc.py").read_text() == "def subtract(a, b):\n    return a - b\n"
    assert (workspace / "tests" / "test_calc.py").read_text().endswith("assert subtract(5, 3) == 2\n")
