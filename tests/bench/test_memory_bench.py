"""bench/memory.py runs end to end on a small store (its numbers are not checked: never assert on time)."""

from __future__ import annotations

import random

from tests.helpers import load_bench_module

bench = load_bench_module("memory")


def test_a_size_is_filled_and_both_rankings_find_what_is_asked() -> None:
    row = bench.measure_size(300, 20, seed=3)
    assert row["memories"] == 300 and row["vectors"].startswith("v")
    for part in ("fts", "hybrid", "remember"):
        assert 0 < row[part]["p50_ms"] <= row[part]["p99_ms"]
    for ranking in ("fts", "hybrid"):
        assert 0.5 <= row[ranking]["source_in_top5"] <= 1 and 0 <= row[ranking]["misspelt_source_in_top5"] <= 1


def test_memories_are_distinct_and_spread_over_the_scopes() -> None:
    rng = random.Random(1)
    texts = bench.sentences(rng, bench.vocabulary(rng, 200), 100)
    assert len(set(texts)) == 100
    asked = bench.queries(rng, texts, 10)
    assert all(source in texts and 2 <= len(query.split()) <= 4 for query, source, _ in asked)
    assert [typo for _, _, typo in asked] == [True, False, False, False, False] * 2
    scopes = [bench.scope_for(i) for i in range(8)]
    assert scopes.count(bench.WORKSPACE) == 4 and scopes.count("global") == 2
