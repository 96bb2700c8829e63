from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from chrysalis.stores import ProfileStats, Stores


def _log(stores: Stores, profile: str, task_type: str, success: bool, **overrides: Any) -> None:
    row: dict[str, Any] = {
        "run_id": "r",
        "profile": profile,
        "task_type": task_type,
        "model": "local:qwen2.5-coder-1.5b",
        "success": success,
        "duration_ms": 1000.0,
        "cost_usd": 0.0,
        "input_tokens": 100,
        "output_tokens": 10,
    }
    row.update(overrides)
    stores.evals.log(**row)


def test_summary_groups_by_profile_task_type_and_model(stores: Stores) -> None:
    _log(stores, "editor", "fix", True, duration_ms=1000.0, cost_usd=0.01)
    _log(stores, "editor", "fix", False, duration_ms=3000.0, cost_usd=0.02, input_tokens=50)
    _log(stores, "editor", "fix", True, model="openai:gpt-4o-mini")
    _log(stores, "researcher", "explore", True)
    summary = stores.evals.summary()
    assert [(s.profile, s.task_type, s.model) for s in summary] == [
        ("editor", "fix", "local:qwen2.5-coder-1.5b"),
        ("editor", "fix", "openai:gpt-4o-mini"),
        ("researcher", "explore", "local:qwen2.5-coder-1.5b"),
    ]
    first = summary[0]
    assert first.total_cost_usd == pytest.approx(0.03)
    assert dataclasses.replace(first, total_cost_usd=0.03) == ProfileStats(
        profile="editor",
        task_type="fix",
        model="local:qwen2.5-coder-1.5b",
        runs=2,
        successes=1,
        success_rate=0.5,
        mean_duration_ms=2000.0,
        total_cost_usd=0.03,
        input_tokens=150,
        output_tokens=20,
    )
    assert stores.evals.count() == 4


def test_empty_store(stores: Stores) -> None:
    assert stores.evals.summary() == []
    assert stores.evals.suggest_profile("fix") is None


def test_suggest_profile_picks_the_highest_success_rate(stores: Stores) -> None:
    for success in (True, False, False):
        _log(stores, "researcher", "fix", success)
    for success in (True, True, False):
        _log(stores, "editor", "fix", success)
    _log(stores, "researcher", "explore", True)
    assert stores.evals.suggest_profile("fix") == "editor"
    assert stores.evals.suggest_profile("explore") == "researcher"
    assert stores.evals.suggest_profile("unknown") is None


def test_suggest_profile_breaks_ties_by_evidence_then_cost(stores: Stores) -> None:
    _log(stores, "lucky", "fix", True, cost_usd=0.0)
    _log(stores, "steady", "fix", True, cost_usd=0.5)
    _log(stores, "steady", "fix", True, cost_usd=0.5)
    assert stores.evals.suggest_profile("fix") == "steady"
    assert stores.evals.suggest_profile("fix", min_runs=3) is None
    _log(stores, "cheap", "fix", True, cost_usd=0.0)
    _log(stores, "cheap", "fix", True, cost_usd=0.0)
    assert stores.evals.suggest_profile("fix") == "cheap"


def test_negative_numbers_are_refused(stores: Stores) -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        _log(stores, "editor", "fix", True, cost_usd=-1.0)
    assert stores.evals.count() == 0


def test_by_model_sums_over_profiles_per_task_type(stores: Stores) -> None:
    _log(stores, "editor", "fix", True, cost_usd=0.02, duration_ms=1000.0)
    _log(stores, "coder", "fix", False, cost_usd=0.04, duration_ms=3000.0)
    _log(stores, "coder", "fix", True, model="openai:gpt-4o-mini")
    _log(stores, "coder", "explain", True)
    rows = stores.evals.by_model()
    assert [(r.task_type, r.model, r.runs, r.successes) for r in rows] == [
        ("explain", "local:qwen2.5-coder-1.5b", 1, 1),
        ("fix", "local:qwen2.5-coder-1.5b", 2, 1),
        ("fix", "openai:gpt-4o-mini", 1, 1),
    ]
    local_fix = rows[1]
    assert local_fix.mean_cost_usd == pytest.approx(0.03)
    assert local_fix.mean_duration_ms == 2000.0 and local_fix.success_rate == 0.5
    assert [r.model for r in stores.evals.by_model("fix")] == ["local:qwen2.5-coder-1.5b", "openai:gpt-4o-mini"]
    assert stores.evals.by_model("nothing") == []


def test_summary_and_suggest_profile_filter_by_model(stores: Stores) -> None:
    for success in (True, True, False):
        _log(stores, "editor", "fix", success)
    for success in (True, True, True):
        _log(stores, "coder", "fix", success, model="openai:gpt-4o-mini")
    _log(stores, "editor", "fix", False, model="openai:gpt-4o-mini")
    assert stores.evals.suggest_profile("fix") == "coder"
    assert stores.evals.suggest_profile("fix", model="local:qwen2.5-coder-1.5b") == "editor"
    assert stores.evals.suggest_profile("fix", model="openai:gpt-4o-mini") == "coder"
    assert stores.evals.suggest_profile("fix", 2, model="openai:gpt-4o-mini") == "coder"
    assert stores.evals.suggest_profile("fix", model="ollama:other") is None
    rows = stores.evals.summary(task_type="fix", model="openai:gpt-4o-mini")
    assert [(r.profile, r.runs) for r in rows] == [("coder", 3), ("editor", 1)]
    assert len(stores.evals.summary(task_type="fix")) == 3
