"""bench/voting.py runs end to end with few votes (its numbers are not checked: never assert on time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import load_bench_module

bench = load_bench_module("voting")


def test_every_path_and_level_is_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "voting.json"
    monkeypatch.setattr(bench, "RESULTS", out)
    assert bench.main(["--votes", "20", "--steps", "5"]) == 0
    data = json.loads(out.read_text())
    assert data["agent_step_us"] > 0
    assert {(r["path"].split()[0], r["level"]) for r in data["rows"]} == {
        ("sequential", "none"),
        ("threads", "medium"),
        ("threads", "high"),
        ("threads", "critical"),
        ("async", "none"),
        ("async", "high"),
    }
    assert all(r["samples_per_vote"] >= r["k"] for r in data["rows"])
