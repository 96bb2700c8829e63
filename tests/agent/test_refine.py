"""Seed 001's draft→refine chain: under ``--model auto`` a cheap model drafts; a stronger one refines a failure."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import Event, FrameworkCall, Refine, RunResult, Start
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.stores import Stores

BUG, WRONG, FIX = "    return a + b\n", "    return a * b\n", "    return a - b\n"
HANDOVER = "You are a stronger model taking over"


class TwoModels:
    """One scripted server for both models: the small one writes a wrong fix and insists; the big one fixes it."""

    def __init__(self) -> None:
        self.turns: Counter[str] = Counter()
        self.samples: Counter[str] = Counter()
        """Requests without tools: repair's samples (the framework runs repair when the draft fails the check)."""
        self.saw_handover = False

    def __call__(self, body: dict[str, Any]) -> ScriptedReply | str:
        model = str(body["model"])
        if not body.get("tools"):
            self.samples[model] += 1
            return "no idea"
        self.turns[model] += 1
        if model == "small":
            if self.turns[model] == 1:
                return ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": BUG, "new_text": WRONG})
            return "done"
        self.saw_handover = any(HANDOVER in str(m.get("content")) for m in body["messages"])
        if self.turns[model] == 1:
            return ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": WRONG, "new_text": FIX})
        return "Fixed: subtract now subtracts."


def session(
    workspace: Path, server: ScriptedOpenAIServer, home: Path, events: list[Event], **flags: Any
) -> AgentSession:
    (home / "models.json").write_text(
        json.dumps(
            {
                "models": {
                    "small": {"capabilities": ["coding", "tools"], "cost_tier": "free", "strength": 1},
                    "big": {"capabilities": ["coding", "tools"], "cost_tier": "high", "strength": 5},
                }
            }
        )
    )
    settings = load_settings(
        {
            "workspace": workspace,
            "model": "auto",
            "base_url": server.base_url,
            "auto_models": "small, big",
            "level": 3,
            "yes": True,
            **flags,
        }
    )
    return AgentSession(settings, on_event=events.append, rng=random.Random(0))


def draft_by_small(home: Path) -> None:
    """A record that makes the router draft with the small model (as the cheap prior would, most of the time)."""
    with Stores.open(home) as stores:
        for i in range(12):
            stores.evals.log(
                run_id=f"old{i}",
                profile="coder",
                task_type="fix",
                model="small",
                success=True,
                duration_ms=1.0,
                cost_usd=0.0,
                input_tokens=1,
                output_tokens=1,
            )


def test_a_failed_draft_is_refined_by_the_stronger_model_in_the_same_run(workspace: Path, chrysalis_home: Path) -> None:
    draft_by_small(chrysalis_home)
    events: list[Event] = []
    script = TwoModels()
    with ScriptedOpenAIServer(script) as server:
        agent = session(workspace, server, chrysalis_home, events)
        result = asyncio.run(agent.run("fix the bug so that the test passes"))
        agent.close()
    start = events[0]
    assert isinstance(start, Start) and start.model == "small" and start.refine_model == "big"
    (refine,) = [e for e in events if isinstance(e, Refine)]
    assert (refine.draft_model, refine.model) == ("small", "big") and "tests failed" in refine.reason
    (repair,) = [e for e in events if isinstance(e, FrameworkCall)]  # the draft's repair first, on the small model
    assert events.index(repair) < events.index(refine) and set(script.samples) == {"small"}
    finals = [e for e in events if isinstance(e, RunResult)]
    assert finals == [result] and result.success and result.verified is True  # one answer, the refined one
    assert script.saw_handover and script.turns["big"] == 2
    assert (workspace / "calc.py").read_text() == "def subtract(a, b):\n" + FIX
    with sqlite3.connect(chrysalis_home / "chrysalis.db") as db:
        parts = db.execute(
            "SELECT model, success, input_tokens FROM evals WHERE run_id = ? ORDER BY id", (start.run_id,)
        ).fetchall()
    assert [(model, success) for model, success, _ in parts] == [("small", 0), ("big", 1)]  # each model learns its part
    assert sum(tokens for _, _, tokens in parts) == result.input_tokens
    assert result.steps == sum(script.turns.values())


def test_cheap_priorities_and_explicit_models_do_not_refine(workspace: Path, chrysalis_home: Path) -> None:
    draft_by_small(chrysalis_home)
    events: list[Event] = []
    with ScriptedOpenAIServer(TwoModels()) as server:
        agent = session(workspace, server, chrysalis_home, events, priority="cheap")
        result = asyncio.run(agent.run("fix the bug so that the test passes"))
        agent.close()
    start = events[0]
    assert isinstance(start, Start) and start.model == "small" and start.refine_model is None
    assert not result.success and not any(isinstance(e, Refine) for e in events)
    assert (workspace / "calc.py").read_text() == "def subtract(a, b):\n" + WRONG


def test_a_priority_changed_between_runs_changes_the_next_choice(workspace: Path, chrysalis_home: Path) -> None:
    """The REPL's ``/priority`` replaces the session's settings; the next run's choice must follow them."""
    draft_by_small(chrysalis_home)
    with ScriptedOpenAIServer(TwoModels()) as server:
        agent = session(workspace, server, chrysalis_home, [], priority="cheap")
        try:
            assert asyncio.run(agent.models.choose(agent.settings, "fix")).refiner is None
            agent.settings = dataclasses.replace(agent.settings, priority="best")
            assert asyncio.run(agent.models.choose(agent.settings, "fix")).refiner == "big"
        finally:
            agent.close()
