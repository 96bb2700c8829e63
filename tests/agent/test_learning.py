"""What a run learns from the eval store: the tool profile (conservatively) and, under auto, the model."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.learning import MIN_RUNS, choose_profile
from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.errors import ConfigError
from chrysalis.events import Event, Start
from chrysalis.llm.testing import ScriptedModel, ScriptedOpenAIServer, final
from chrysalis.stores import Stores

LOCAL = "local:qwen2.5-coder-1.5b"


def log(stores: Stores, profile: str, successes: int, failures: int, *, model: str = LOCAL, kind: str = "fix") -> None:
    for i in range(successes + failures):
        stores.evals.log(
            run_id=f"{profile}{i}",
            profile=profile,
            task_type=kind,
            model=model,
            success=i < successes,
            duration_ms=10.0,
            cost_usd=0.0,
            input_tokens=1,
            output_tokens=1,
        )


@pytest.fixture
def stores(chrysalis_home: Path) -> Any:
    with Stores.open(chrysalis_home) as opened:
        yield opened


def choose(stores: Stores, workspace: Path, model: str = LOCAL, **flags: Any) -> Any:
    settings = load_settings({"workspace": workspace, "model": model, **flags})
    return choose_profile(settings, task_type="fix", model=model, evals=stores.evals)


def test_with_too_few_runs_the_default_stays(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 4, 0)
    choice = choose(stores, workspace)
    assert choice.profile == "coder"
    assert choice.reason == f"the default for embedded models; 4 of {MIN_RUNS} 'fix' runs on this model recorded"
    assert choose(stores, workspace, model="openai:gpt-4o-mini").profile == "all"


def test_a_clearly_better_profile_is_learned(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 4, 0)
    log(stores, "coder", 1, 3)
    choice = choose(stores, workspace)
    assert choice.profile == "editor"
    assert choice.reason == "learned: editor 4/4 succeeded on 'fix' tasks, coder 1/4 succeeded"


def test_a_profile_only_slightly_better_is_not_learned(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 3, 1)
    log(stores, "coder", 3, 2)
    choice = choose(stores, workspace)
    assert choice.profile == "coder"
    assert "is not clearly better" in choice.reason


def test_records_of_other_models_and_task_types_do_not_count(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 9, 0, model="openai:gpt-4o-mini")
    log(stores, "editor", 9, 0, kind="explain")
    assert choose(stores, workspace).profile == "coder"


def test_a_configured_profile_is_kept(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 9, 0)
    choice = choose(stores, workspace, profile="vcs")
    assert (choice.profile, choice.reason) == ("vcs", "set by flag --profile")


def test_profiles_that_are_not_tool_profiles_are_never_learned(stores: Stores, workspace: Path) -> None:
    log(stores, "custom", 9, 0)
    assert choose(stores, workspace).profile == "coder"


def test_a_run_uses_and_reports_the_learned_profile(stores: Stores, workspace: Path) -> None:
    log(stores, "editor", 5, 0)  # FunctionModel sessions record under settings.model and default to "all"
    events: list[Event] = []
    settings = load_settings({"workspace": workspace})
    session = AgentSession(settings, model=ScriptedModel([final("ok")]).model(), on_event=events.append, stores=stores)
    asyncio.run(session.run("fix the bug"))
    start = events[0]
    assert isinstance(start, Start)
    assert (start.task_type, start.profile) == ("fix", "editor")
    assert start.profile_reason.startswith("learned: editor 5/5")
    assert start.model_reason is None and start.candidates is None
    assert "shell" not in session.tools and "edit_file" in session.tools
    assert [(r.profile, r.runs) for r in stores.evals.summary(task_type="fix")] == [("editor", 6)]


# -- model = "auto" ----------------------------------------------------------------------------------------------


def auto_session(workspace: Path, server: ScriptedOpenAIServer, events: list[Event], stores: Stores, seed: int) -> Any:
    settings = load_settings(
        {"workspace": workspace, "model": "auto", "base_url": server.base_url, "auto_models": "model-a, model-b"}
    )
    return AgentSession(settings, on_event=events.append, stores=stores, rng=random.Random(seed))


def test_auto_picks_a_candidate_reports_it_and_records_the_real_model(stores: Stores, workspace: Path) -> None:
    events: list[Event] = []
    with ScriptedOpenAIServer(["It adds."]) as server:
        session = auto_session(workspace, server, events, stores, seed=3)
        result = asyncio.run(session.run("explain calc.py"))
        assert server.requests[0]["model"] == session.active_model
    start = events[0]
    assert isinstance(start, Start) and result.success
    assert start.model in ("model-a", "model-b") and start.model == session.active_model
    assert start.model_reason is not None and start.model_reason.startswith(f"auto picked {start.model}")
    assert start.candidates is not None and [c["model"] for c in start.candidates] == ["model-a", "model-b"]
    assert [(r.model, r.runs) for r in stores.evals.by_model("explain")] == [(start.model, 1)]


def test_auto_follows_the_record(stores: Stores, workspace: Path) -> None:
    log(stores, "all", 0, 12, model="model-a", kind="explain")
    log(stores, "all", 12, 0, model="model-b", kind="explain")
    picked = []
    for seed in range(5):
        events: list[Event] = []
        with ScriptedOpenAIServer(["It adds."]) as server:
            asyncio.run(auto_session(workspace, server, events, stores, seed=seed).run("explain calc.py"))
        assert isinstance(events[0], Start)
        picked.append(events[0].model)
    assert picked == ["model-b"] * 5


def test_a_session_with_a_bad_auto_models_fails_before_any_run(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "model": "auto", "auto_models": ["nosuch:thing"]})
    with pytest.raises(ConfigError, match="auto_models"):
        AgentSession(settings)
