"""bench/mcp_overhead.py runs end to end with a few calls (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from tests.helpers import load_bench_module

bench = load_bench_module("mcp_overhead")


def test_both_paths_are_timed_and_compared() -> None:
    result = bench.measure(calls=3)
    assert result["calls"] == 3
    for path in ("in_process", "mcp_stdio"):
        assert result[path]["p50_ms"] > 0 and result[path]["p99_ms"] >= result[path]["p50_ms"]
    assert result["ratio_p50"] > 0 and result["ratio_p99"] > 0


def test_p99_of_200_is_the_198th_value() -> None:
    assert bench.percentile([float(n) for n in range(1, 201)], 0.99) == 198.0
    assert bench.percentile([5.0, 1.0, 3.0], 0.5) == 3.0
