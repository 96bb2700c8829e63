"""Seeded stores for the dashboard's tests: real rows, written through each store's own API."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.events import (
    ErrorEvent,
    ModelCall,
    PlanEnd,
    PlanNodeEvent,
    RunResult,
    Start,
    TextDelta,
    ToolCall,
    ToolResultEvent,
)
from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point
from chrysalis.evolve.module import Predict
from chrysalis.evolve.signature import Signature
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.runs import RunStore
from chrysalis.stores import Pattern, Stores

EVIL = "Fix the <script>alert('pwned')</script> bug"
"""A task as a model or user might write it: the pages must show it as text."""


def _start(run_id: str, task: str, ts: float) -> Start:
    return Start(
        run_id=run_id,
        ts=ts,
        task=task,
        model="openai:gpt-test",
        mode="code",
        level=2,
        workspace="/ws",
        task_type="fix",
        profile="coder",
        profile_reason="default",
    )


def _seed_traces(stores: Stores) -> None:
    t = 1_700_000_000.0
    for event in (
        _start("run-ok-1", EVIL, t),
        ModelCall(
            run_id="run-ok-1",
            ts=t + 1,
            step=1,
            model="openai:gpt-test",
            input_tokens=1200,
            output_tokens=80,
            cost_usd=0.0123,
            duration_ms=900,
        ),
        ToolCall(run_id="run-ok-1", ts=t + 1.5, step=1, call_id="c1", tool="read_file", args={"path": "calc.py"}),
        ToolResultEvent(run_id="run-ok-1", ts=t + 2, call_id="c1", tool="read_file", ok=True, result="def add(a, b)"),
        TextDelta(run_id="run-ok-1", ts=t + 3, text="The bug "),
        TextDelta(run_id="run-ok-1", ts=t + 3.1, text="is fixed."),
        RunResult(
            run_id="run-ok-1",
            ts=t + 4,
            output="The bug is fixed.",
            success=True,
            steps=2,
            input_tokens=1200,
            output_tokens=80,
            cost_usd=0.0123,
            duration_ms=4000,
        ),
        _start("run-err-2", "Explain the parser", t + 10),
        ErrorEvent(
            run_id="run-err-2", ts=t + 12, reason="timeout", message="The run took longer than 900 s.", exit_code=1
        ),
        _start("plan-3", "Add tests for lexer.py and parser.py", t + 20),
        PlanNodeEvent(
            run_id="plan-3",
            ts=t + 21,
            node_id="n0",
            parent_id=None,
            task="Add tests for lexer.py and parser.py",
            depth=0,
            op="decompose",
            profile="all",
            status="planned",
        ),
        PlanNodeEvent(
            run_id="plan-3",
            ts=t + 22,
            node_id="n1",
            parent_id="n0",
            task="Write tests for lexer.py",
            depth=1,
            op="spawn",
            profile="editor",
            status="running",
        ),
        PlanNodeEvent(
            run_id="plan-3",
            ts=t + 23,
            node_id="n2",
            parent_id="n0",
            task="Write tests for parser.py",
            depth=1,
            op="spawn",
            profile="editor",
            status="failed",
            detail="pytest failed twice",
        ),
        PlanNodeEvent(
            run_id="plan-3",
            ts=t + 24,
            node_id="n1",
            parent_id="n0",
            task="Write tests for lexer.py",
            depth=1,
            op="spawn",
            profile="editor",
            status="done",
            detail="3 tests added",
            agent_run_id="run-ok-1",
        ),
        PlanEnd(
            run_id="plan-3",
            ts=t + 25,
            success=False,
            output="lexer done; parser failed",
            phenotype={"depth": 1.0, "breadth": 2.0},
        ),
    ):
        stores.traces.record(event.run_id, event.to_json())


def _seed_evals(stores: Stores) -> None:
    rows = [
        ("coder", "fix", "openai:gpt-test", True, 1000.0, 0.01),
        ("coder", "fix", "openai:gpt-test", True, 2000.0, 0.02),
        ("coder", "fix", "openai:gpt-test", False, 3000.0, 0.03),
        ("researcher", "explain", "local:qwen2.5-coder-1.5b", True, 500.0, 0.0),
    ]
    for i, (profile, kind, model, ok, ms, usd) in enumerate(rows):
        stores.evals.log(
            run_id=f"e{i}",
            profile=profile,
            task_type=kind,
            model=model,
            success=ok,
            duration_ms=ms,
            cost_usd=usd,
            input_tokens=100,
            output_tokens=10,
        )


def _seed_archive(stores: Stores) -> None:
    sig = Signature.parse("question -> answer: int", name="Sum")

    def point(tag: str, score: float, cost: float, latency: float, tokens: float) -> Point:
        return Point(Predict(sig, instructions=tag), Phenotype(score, latency, cost, tokens))

    archive = ModuleArchive(
        "sum.<b>bold</b>",
        sig,
        [
            point("a", 0.9, 1.0, 40, 100),
            point("b", 0.8, 2.0, 10, 400),
            point("c", 0.7, 3.0, 20, 200),
            point("d", 0.625, 4.0, 30, 300),
        ],
        meta={"model": "openai:gpt-test", "metric": "exact", "rollouts": 32},
    )
    stores.archives.save(archive.name, archive.to_json())
    stores.patterns.offer(
        Pattern(
            task_type="test",
            bin="d1-b2-cost_low-ctx_low",
            task="Add tests for x.py",
            priority="best",
            steps=[{"op": "decompose", "depth": 0}, {"op": "spawn", "depth": 1}],
            phenotype={"depth": 1.0},
            score=0.75,
        )
    )


def _seed_queue() -> None:
    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        runs.add("q-waiting", "Queued <b>task</b>", "high", {"workspace": "/ws"})
        runs.add("q-done", "Answer the question", "normal", {"workspace": "/ws"})
        runs.set_status("q-done", "running", worker="w-1")
        runs.add_event("q-done", "k1", {"type": "tool_call", "tool": "read_file", "args": {"path": "a.py"}})
        runs.set_status("q-done", "done", result={"output": "forty-two"})


@pytest.fixture
def seeded(chrysalis_home: Path) -> Path:
    """Every page's store with a few rows; returns the CHRYSALIS_HOME."""
    with Stores.open(chrysalis_home) as stores:
        _seed_traces(stores)
        _seed_evals(stores)
        _seed_archive(stores)
    _seed_queue()
    return chrysalis_home
