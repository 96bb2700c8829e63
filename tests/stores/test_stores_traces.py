from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from chrysalis.stores import Stores
from chrysalis.stores.db import MIGRATIONS


def _jsonl(home: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (home / "traces.jsonl").read_text(encoding="utf-8").splitlines()]


def test_events_round_trip_in_order_with_run_id_and_ts(stores: Stores, home: Path) -> None:
    stores.traces.record("run-1", {"type": "start", "task": "fix it", "model": "local:x", "ts": 100.5})
    stores.traces.record("run-2", {"type": "start", "task": "other"})
    stores.traces.record("run-1", {"type": "tool_call", "tool": "read_file", "args": {"path": "a.py"}})
    events = stores.traces.events("run-1")
    assert [e["type"] for e in events] == ["start", "tool_call"]
    assert events[0] == {"run_id": "run-1", "ts": 100.5, "type": "start", "task": "fix it", "model": "local:x"}
    assert events[1]["args"] == {"path": "a.py"}
    assert isinstance(events[1]["ts"], float)
    assert stores.traces.events("nope") == []
    assert stores.traces.count() == 3


def test_jsonl_file_has_one_parseable_line_per_event(stores: Stores, home: Path) -> None:
    stores.traces.record("r", {"type": "text_delta", "text": "line one\nline two \u2713"})
    stores.traces.record("r", {"type": "tool_result", "result": {"nested": [1, 2]}, "path": Path("a/b.py")})
    lines = _jsonl(home)
    assert [line["type"] for line in lines] == ["text_delta", "tool_result"]
    assert lines[0]["text"] == "line one\nline two \u2713"
    assert lines[1]["path"] == str(Path("a/b.py"))  # non-JSON values are kept as their str
    assert all(line["run_id"] == "r" for line in lines)


def test_the_given_run_id_wins_over_one_inside_the_event(stores: Stores) -> None:
    stores.traces.record("real", {"type": "start", "run_id": "stale"})
    assert stores.traces.events("real")[0]["run_id"] == "real"


def test_runs_summarise_the_latest_runs_first(stores: Stores) -> None:
    stores.traces.record("a", {"type": "start", "task": "task a", "model": "m1", "ts": 10.0})
    stores.traces.record("a", {"type": "final", "success": True, "cost_usd": 0.25, "ts": 12.0})
    stores.traces.record("b", {"type": "start", "task": "task b", "model": "m2", "ts": 20.0})
    stores.traces.record("b", {"type": "error", "reason": "timeout", "ts": 25.0})
    stores.traces.record("c", {"type": "tool_call", "ts": 30.0})
    runs = stores.traces.runs()
    assert [r.run_id for r in runs] == ["c", "b", "a"]
    c, b, a = runs
    assert (a.task, a.model, a.status, a.success, a.cost_usd) == ("task a", "m1", "final", True, 0.25)
    assert (a.started_at, a.ended_at, a.events) == (10.0, 12.0, 2)
    assert (b.status, b.success) == ("error", False)
    assert (c.task, c.status, c.success, c.cost_usd) == (None, "unfinished", None, None)
    assert [r.run_id for r in stores.traces.runs(limit=1)] == ["c"]


def test_event_without_type_is_refused(stores: Stores, home: Path) -> None:
    with pytest.raises(ValueError, match="'type'"):
        stores.traces.record("r", {"text": "no type"})
    assert stores.traces.count() == 0
    assert (home / "traces.jsonl").read_text() == ""


def test_traces_survive_reopening(home: Path) -> None:
    with Stores.open(home) as stores:
        stores.traces.record("r", {"type": "start"})
    with Stores.open(home) as stores:
        stores.traces.record("r", {"type": "final", "success": False})
        assert [e["type"] for e in stores.traces.events("r")] == ["start", "final"]
    assert len(_jsonl(home)) == 2


def test_runs_with_an_event_type_and_one_runs_summary(stores: Stores) -> None:
    stores.traces.record("plain", {"type": "start", "task": "fix it", "model": "m"})
    stores.traces.record("plan-a", {"type": "plan_node", "node_id": "n0"})
    stores.traces.record("plain", {"type": "final", "success": True, "cost_usd": 0.5})
    stores.traces.record("plan-b", {"type": "start", "task": "split it", "model": "m"})
    stores.traces.record("plan-b", {"type": "plan_node", "node_id": "n0"})
    stores.traces.record("plan-b", {"type": "plan_node", "node_id": "n1"})
    assert [run.run_id for run in stores.traces.runs_with("plan_node")] == ["plan-b", "plan-a"]  # newest first
    assert [run.run_id for run in stores.traces.runs_with("plan_node", limit=1)] == ["plan-b"]
    assert stores.traces.runs_with("repair_end") == []
    plain = stores.traces.summary("plain")
    assert plain is not None and (plain.task, plain.status, plain.success, plain.cost_usd, plain.events) == (
        "fix it",
        "final",
        True,
        0.5,
        2,
    )
    assert stores.traces.summary("nope") is None


def test_a_decomposition_ends_with_its_plan_end(stores: Stores) -> None:
    stores.traces.record("plan", {"type": "start", "task": "split it", "model": "m"})
    stores.traces.record("plan", {"type": "plan_node", "node_id": "n0"})
    stores.traces.record("plan", {"type": "plan_end", "success": False, "output": "", "phenotype": {}})
    plan = stores.traces.summary("plan")
    assert plan is not None and (plan.status, plan.success) == ("final", False)


def test_decompositions_recorded_before_are_marked_as_their_plan_end_says(home: Path) -> None:
    with Stores.open(home) as stores:
        for run_id, success in (("won", True), ("lost", False)):
            stores.traces.record(run_id, {"type": "start", "task": run_id})
            stores.traces.record(run_id, {"type": "plan_end", "success": success, "output": "", "phenotype": {}})
        stores.traces.record("going", {"type": "start", "task": "still going"})
    before = next(n for n, statements in enumerate(MIGRATIONS) if "plan_end" in statements[0])
    conn = sqlite3.connect(home / "chrysalis.db")
    with conn:  # as an older Chrysalis left them: every decomposition unfinished, the schema from before the fix
        conn.execute("UPDATE trace_runs SET status = 'unfinished', success = NULL")
        conn.execute("UPDATE schema_version SET version = ?", (before,))
    conn.close()
    with Stores.open(home) as stores:
        shown = {run.run_id: (run.status, run.success) for run in stores.traces.runs()}
    assert shown == {"won": ("final", True), "lost": ("final", False), "going": ("unfinished", None)}
