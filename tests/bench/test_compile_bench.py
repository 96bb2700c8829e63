"""The compile benchmark's partial reruns keep what was not rerun and never duplicate a row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import BENCH, load_bench_module

EARLIER = [
    {"system": "zero-shot (ours)", "score": 0.5},
    {"system": "chrysalis compile (best)", "score": 0.6},
    {"system": "DSPy zero-shot", "score": 0.4},
    {"system": "DSPy bootstrap", "score": 0.6},
    {"system": "DSPy gepa", "score": 0.4},
]


@pytest.fixture(scope="module")
def bench() -> Any:
    return load_bench_module("compile")


def systems(rows: list[dict[str, Any]]) -> list[str]:
    return [r["system"] for r in rows]


def test_a_full_run_keeps_nothing_and_runs_zero_shot_and_every_peer(bench: Any) -> None:
    assert bench.rerun_plan([], ["bootstrap", "mipro"], peers_only=False) == ([], ["zero-shot", "bootstrap", "mipro"])


def test_rerunning_ours_keeps_every_dspy_row(bench: Any) -> None:
    kept, optimizers = bench.rerun_plan(EARLIER, [], peers_only=False)
    assert systems(kept) == ["DSPy zero-shot", "DSPy bootstrap", "DSPy gepa"]
    assert optimizers == []


def test_rerunning_one_peer_keeps_ours_and_the_others_and_skips_zero_shot(bench: Any) -> None:
    kept, optimizers = bench.rerun_plan(EARLIER, ["mipro", "gepa"], peers_only=True)
    assert systems(kept) == ["zero-shot (ours)", "chrysalis compile (best)", "DSPy zero-shot", "DSPy bootstrap"]
    assert optimizers == ["mipro", "gepa"]


def test_rerunning_peers_into_a_file_without_dspy_zero_shot_runs_it(bench: Any) -> None:
    _, optimizers = bench.rerun_plan(EARLIER[:2], ["bootstrap"], peers_only=True)
    assert optimizers == ["zero-shot", "bootstrap"]


def test_rerunning_ours_and_a_peer_together_drops_only_what_is_rerun(bench: Any) -> None:
    kept, optimizers = bench.rerun_plan(EARLIER, ["bootstrap"], peers_only=False)
    assert systems(kept) == ["DSPy zero-shot", "DSPy gepa"]
    assert optimizers == ["bootstrap"]


def test_a_partial_rerun_without_earlier_results_exits_2_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "compile.py"), "--ours-only", "--out", str(missing)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert f"{missing} does not exist" in done.stderr and "Traceback" not in done.stderr
