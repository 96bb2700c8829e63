"""bench/demo_rate.py (`make demo-rate`): the demo's success rate, on a scripted stand-in for the demo run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import load_bench_module

bench = load_bench_module("demo_rate")
RunOnce = Callable[[str | None, bool], tuple[bool, bool, float]]


def scripted(outcomes: list[tuple[bool, bool, float]]) -> RunOnce:
    """A run_once that returns ``outcomes`` in turn, then fails as an interrupted run would."""
    left: Iterator[tuple[bool, bool, float]] = iter(outcomes)

    def run_once(model: str | None, quiet: bool) -> tuple[bool, bool, float]:
        assert (model, quiet) == ("local:test", True)
        outcome = next(left, None)
        if outcome is None:
            raise KeyboardInterrupt
        return outcome

    return run_once


def test_a_run_counts_only_when_the_tests_pass_with_a_one_line_diff(tmp_path: Path) -> None:
    out = tmp_path / "demo_rate.json"
    runs = [(True, True, 40.04), (True, False, 50.0), (False, False, 60.0)]
    result = bench.measure("local:test", 3, out, scripted(runs))
    written = json.loads(out.read_text())
    assert written == result
    assert (result["runs"], result["passed"], result["passed_one_line"], result["mean_seconds"]) == (3, 2, 1, 50.0)
    assert result["rows"][0] == {"passed": True, "one_line": True, "seconds": 40.0}
    assert {"command", "commit", "date"} <= set(result["provenance"])


def test_an_interrupted_measurement_keeps_the_runs_it_finished(tmp_path: Path) -> None:
    out = tmp_path / "demo_rate.json"
    with pytest.raises(KeyboardInterrupt):
        bench.measure("local:test", 5, out, scripted([(True, True, 1.0), (True, True, 1.0)]))
    written = json.loads(out.read_text())
    assert (written["runs_asked"], written["runs"], written["passed_one_line"]) == (5, 2, 2)


def test_every_run_has_a_home_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a new user's first demo: no run reads the evals or memories an earlier run recorded."""
    import os

    monkeypatch.setenv("CHRYSALIS_HOME", str(tmp_path / "real-home"))
    seen: list[str] = []

    def run_once(model: str | None, quiet: bool) -> tuple[bool, bool, float]:
        seen.append(os.environ["CHRYSALIS_HOME"])
        return True, True, 1.0

    bench.measure("local:test", 2, tmp_path / "demo_rate.json", run_once)
    assert len(set(seen)) == 2 and str(tmp_path / "real-home") not in seen
    assert os.environ["CHRYSALIS_HOME"] == str(tmp_path / "real-home")
