"""A short soak: worker processes on one database, SIGKILLed and restarted mid-work; every run is done exactly once.

The machinery is ``bench/soak.py``'s (which runs 200 runs on 4 workers); here 12 runs on 2 workers
with two kills, each at the arrival of a model request drawn at random: an event, not a moment on
a clock. On SQLite under CHRYSALIS_HOME, and on a PostgreSQL database of the test's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import load_bench_module
from tests.postgres import postgres_database

RUNS = 12


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_killed_workers_lose_no_run_and_repeat_no_effect(engine: str, tmp_path: Path) -> None:
    soak = load_bench_module("soak")
    if engine == "sqlite":
        row = soak.soak(tmp_path, database_url=None, runs=RUNS, workers=2, kills=2, seed=3, rate=1000.0)
    else:
        with postgres_database() as url:
            row = soak.soak(tmp_path, database_url=url, runs=RUNS, workers=2, kills=2, seed=3, rate=1000.0)
    assert row["kills"] == 2
    assert row["lost"] == 0, row["statuses"]
    assert row["effects"] == {"once": RUNS, "never": 0, "more_than_once": 0}
    # Every run asked each of its steps (a re-sent request is counted, not asserted: docs/durable.md, the soak)
    assert row["model_requests"] == RUNS * soak.STEPS + row["resent_requests"]
    assert sum(figures["n"] for figures in row["queue_latency_s"].values()) == RUNS
