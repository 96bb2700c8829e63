"""bench/council.py runs end to end on a few messages (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from tests.helpers import load_bench_module

bench = load_bench_module("council")


def test_every_stage_is_timed_on_both_clocks_against_seed_003s_targets() -> None:
    report = bench.measure(200, seed=3)
    assert report["messages"] == 200 and report["personas"] == 4 and report["turns_spoken"] > 0
    for clock in ("stages", "cpu"):
        assert list(report[clock]) == ["gate", "arbitration", "record", "routing"]
        for row in report[clock].values():
            assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    assert [report["stages"][s]["target_ms"] for s in report["stages"]] == [5.0, 10.0, None, 50.0]


def test_the_same_seed_gives_the_same_discussion() -> None:
    assert bench.measure(50, seed=9)["turns_spoken"] == bench.measure(50, seed=9)["turns_spoken"]
