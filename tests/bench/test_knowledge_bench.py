"""bench/knowledge.py runs end to end on a small graph (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from tests.helpers import load_bench_module

bench = load_bench_module("knowledge")


def test_a_size_is_filled_and_every_part_is_timed() -> None:
    row = bench.measure_size(200, 3, seed=3)
    assert 150 <= row["triples"] == row["added"] <= 200  # a duplicate depends_on is kept once
    for part in ("load", "lookup", "path", "add"):
        assert 0 < row[part]["p50_ms"] <= row[part]["max_ms"]
