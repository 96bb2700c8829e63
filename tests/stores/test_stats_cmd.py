from __future__ import annotations

import io

from rich.console import Console

from chrysalis.cli.stats_cmd import render_stats
from chrysalis.stores import Stores


def _render(stores: Stores) -> str:
    out = io.StringIO()
    render_stats(stores, Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_no_data_prints_a_friendly_hint(stores: Stores) -> None:
    text = _render(stores)
    assert "No runs recorded yet" in text
    assert "chrysalis run" in text


def test_summary_and_recent_runs(stores: Stores) -> None:
    for success in (True, False, True, True):
        stores.evals.log(
            run_id="r1",
            profile="editor",
            task_type="fix",
            model="local:qwen2.5-coder-1.5b",
            success=success,
            duration_ms=2500.0,
            cost_usd=0.125,
            input_tokens=1200,
            output_tokens=300,
        )
    stores.traces.record("r1", {"type": "start", "task": "make the failing test pass", "model": "local:q"})
    stores.traces.record("r1", {"type": "final", "success": True, "cost_usd": 0.0})
    stores.traces.record("r2", {"type": "start", "task": "second"})
    text = _render(stores)
    for expected in ("editor", "fix", "local:qwen2.5-coder-1.5b", "make the failing test pass", "succeeded"):
        assert expected in text
    assert "75%" in text  # success rate
    assert "2.5" in text  # mean seconds
    assert "0.5000" in text  # total USD
    assert "4,800/1,200" in text  # tokens
    assert "unfinished" in text


def test_runs_without_outcomes_still_show(stores: Stores) -> None:
    stores.traces.record("r1", {"type": "start", "task": "t"})
    stores.traces.record("r1", {"type": "error", "reason": "timeout"})
    text = _render(stores)
    assert "No task outcomes recorded yet" in text
    assert "stopped" in text
