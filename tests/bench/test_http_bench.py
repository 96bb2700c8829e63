"""bench/http_service.py end to end with a handful of requests (its numbers are not checked: never assert on time)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import load_bench_module

bench = load_bench_module("http_service")


def test_percentile_is_nearest_rank() -> None:
    values = [float(n) for n in range(1, 101)]
    assert bench.percentile(values, 99) == 99.0
    assert bench.percentile(values, 50) == 50.0
    assert bench.percentile([3.0], 99) == 3.0


def test_a_tiny_run_measures_both_phases_and_executes_every_run(tmp_path: Path) -> None:
    out = tmp_path / "http.json"
    assert bench.main(["--requests", "6", "--clients", "2", "--rounds", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    for setup in ("queue_only", "with_worker"):
        for phase in ("runs", "baseline"):
            assert result[setup][phase]["requests"] == 12
            assert result[setup][phase]["requests_per_second"] > 0 and result[setup][phase]["p99_ms"] > 0
            assert result[setup][phase]["server_cpu_ms_per_request"] >= 0
        assert result[setup]["rps_ratio"] > 0 and result[setup]["p99_ratio"] > 0
    assert result["with_worker"]["executed"] == 6 + 5  # the measured runs and the warm-up's
    assert result["with_worker"]["model_requests"] >= 11
    assert result["queue_only"]["model_requests"] == 0  # nothing ran: the runs stayed queued
