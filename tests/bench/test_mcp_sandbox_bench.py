"""bench/mcp_sandbox.py runs end to end with a few calls (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from tests.helpers import load_bench_module

bench = load_bench_module("mcp_sandbox")


def test_the_three_rows_are_timed_and_compared_to_the_unconfined_server() -> None:
    result = bench.measure(calls=2, files=3)
    assert set(result["rows"]) == {"unconfined", "sandboxed", "sandboxed+snapshots"}
    assert result["rows"]["unconfined"]["ratio_p50"] == 1.0
    for row in result["rows"].values():
        assert row["p50_ms"] > 0 and row["p99_ms"] >= row["p50_ms"] and row["start_ms"] > 0
