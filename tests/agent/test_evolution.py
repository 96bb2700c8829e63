"""Agent evolution: lessons from logged failures, scored by a judge on a replay set, kept only if better."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent import evolution
from chrysalis.agent.evolution import EvolveOptions
from chrysalis.agent.prompts import AGENT_CONTEXT, build_system_prompt
from chrysalis.evolve.options import OptionError
from chrysalis.stores import Stores
from tests.helpers import assert_clean_error, chrysalis

LESSON = "Run the tests after every edit."


def record_failure(stores: Stores, run_id: str, task: str, problem: str) -> None:
    stores.traces.record(run_id, {"type": "start", "task": task, "model": "local:x"})
    stores.traces.record(run_id, {"type": "red_flag", "kind": "unchecked_finish", "detail": "answered before testing"})
    stores.traces.record(run_id, {"type": "final", "output": "done", "success": False, "problem": problem})


def record_success(stores: Stores, run_id: str, task: str) -> None:
    stores.traces.record(run_id, {"type": "start", "task": task, "model": "local:x"})
    stores.traces.record(run_id, {"type": "final", "output": "done", "success": True})


def fake_agent_models(lesson: str, calls: list[str]) -> FunctionModel:
    """Proposer writes ``lesson``; the planner follows lessons; the judge likes plans that run tests."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = messages[0].parts
        system = next(p.content for p in parts if isinstance(p, SystemPromptPart))
        user = str(next(p.content for p in parts if isinstance(p, UserPromptPart)))
        args: dict[str, Any]
        if system.startswith("You improve the standing instructions"):
            calls.append("propose")
            args = {"lessons": lesson, "tool_hints": "Use run_tests, not shell, for tests."}
        elif system.startswith("You are a coding agent"):
            calls.append("plan")
            runs_tests = "run the tests" in user.lower()
            args = {"plan": "1. read the file 2. edit it" + (" 3. run_tests" if runs_tests else "")}
        else:
            calls.append("judge")
            args = {"score": 0.9 if "run_tests" in user else 0.3, "reason": "checked" if "run_tests" in user else "no"}
        return ModelResponse(parts=[ToolCallPart("final_result", args)])

    return FunctionModel(reply)


@pytest.fixture
def stores(chrysalis_home: Path) -> Any:
    with Stores.open(chrysalis_home) as opened:
        yield opened


def test_failures_come_from_the_traces_with_what_went_wrong(stores: Stores) -> None:
    record_success(stores, "ok1", "explain calc.py")
    record_failure(stores, "bad1", "fix subtract", "the change is unchecked")
    stores.traces.record("err1", {"type": "start", "task": "fix add", "model": "local:x"})
    stores.traces.record("err1", {"type": "error", "reason": "stuck", "message": "repeated calls", "exit_code": 1})
    failures = evolution.logged_failures(stores)
    assert [f.task for f in failures] == ["fix add", "fix subtract"]
    assert "stopped (stuck): repeated calls" in failures[0].problem
    assert "the change is unchecked" in failures[1].problem and "red flag unchecked_finish" in failures[1].problem


def test_a_better_candidate_is_kept_as_a_new_version(stores: Stores, chrysalis_home: Path) -> None:
    record_failure(stores, "bad1", "fix subtract", "the change is unchecked")
    record_failure(stores, "bad2", "fix divide", "answered before testing")
    calls: list[str] = []
    result = asyncio.run(evolution.evolve_agent(stores, model=fake_agent_models(LESSON, calls)))
    assert result.current is not None and result.current.score == pytest.approx(0.3)
    assert result.kept is not None and result.kept.score == pytest.approx(0.9)
    assert result.version == 1
    saved = stores.context.load(AGENT_CONTEXT)
    assert saved.system == LESSON and "run_tests" in saved.tool_hints
    assert calls.count("propose") == 2 and result.calls == len(calls)


def test_a_candidate_that_does_not_help_is_not_kept(stores: Stores, chrysalis_home: Path) -> None:
    record_failure(stores, "bad1", "fix subtract", "the change is unchecked")
    model = fake_agent_models("Be quick.", [])
    result = asyncio.run(evolution.evolve_agent(stores, EvolveOptions(candidates=1), model=model))
    assert result.kept is None and result.version is None
    assert stores.context.versions(AGENT_CONTEXT) == []


def test_a_dry_run_scores_but_saves_nothing(stores: Stores, chrysalis_home: Path) -> None:
    record_failure(stores, "bad1", "fix subtract", "the change is unchecked")
    model = fake_agent_models(LESSON, [])
    result = asyncio.run(evolution.evolve_agent(stores, EvolveOptions(dry_run=True), model=model))
    assert result.kept is not None and result.version is None
    assert stores.context.versions(AGENT_CONTEXT) == []


def test_no_failures_means_nothing_to_do_and_no_model_calls(stores: Stores, chrysalis_home: Path) -> None:
    record_success(stores, "ok1", "explain calc.py")
    calls: list[str] = []
    result = asyncio.run(evolution.evolve_agent(stores, model=fake_agent_models(LESSON, calls)))
    assert result.failures == 0 and calls == []


def test_rollback_makes_an_old_version_current_without_losing_history(stores: Stores) -> None:
    from chrysalis.stores import Context

    stores.context.save(Context(system="first"), AGENT_CONTEXT)
    stores.context.save(Context(system="second"), AGENT_CONTEXT)
    assert evolution.rollback(stores, 1) == 3
    assert stores.context.load(AGENT_CONTEXT).system == "first"
    assert evolution.rollback(stores, 0) == 4 and stores.context.load(AGENT_CONTEXT).system == ""
    assert [v for v, _, _ in evolution.history(stores)] == [1, 2, 3, 4]
    with pytest.raises(KeyError, match=r"no version 9; saved versions: \[1, 2, 3, 4\]"):
        evolution.rollback(stores, 9)


def test_the_system_prompt_carries_the_lessons(workspace: Path) -> None:
    prompt = build_system_prompt(workspace, "code", level=2, tool_hints="Use run_tests.", lessons=LESSON)
    assert "Lessons from earlier runs:\n" + LESSON in prompt and "Tool hints:\nUse run_tests." in prompt


def test_a_compiled_archive_replaces_a_built_in_agent_module(chrysalis_home: Path) -> None:
    from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point
    from chrysalis.evolve.module import Predict

    judge = Predict(evolution.JudgePlan, instructions="Be strict.")
    archive = ModuleArchive("agent.judge", evolution.JudgePlan)
    archive.add(Point(judge, Phenotype(score=1.0, latency_ms=1.0, cost_usd=0.0, tokens=10.0)))
    archive.save(chrysalis_home)
    with Stores.open(chrysalis_home) as stores:
        assert evolution.agent_module("judge", stores).instructions == "Be strict."
        assert evolution.agent_module("planner", stores).signature is evolution.PlanFirstSteps


def test_cli_evolve_with_nothing_recorded_says_so(workspace: Path) -> None:
    done = chrysalis("evolve", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "nothing to learn from yet" in done.stdout


def test_cli_evolve_history_and_a_bad_rollback(workspace: Path) -> None:
    assert "no lessons saved yet" in chrysalis("evolve", "--history", cwd=workspace).stdout
    assert_clean_error(chrysalis("evolve", "--rollback", "3", cwd=workspace), 2, "no version 3")


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--replay", "0", "--replay must be 1 or more, got 0"),
        ("--candidates", "-1", "--candidates must be 0 or more, got -1"),
    ],
)
def test_cli_evolve_refuses_bad_counts(workspace: Path, flag: str, value: str, needle: str) -> None:
    assert_clean_error(chrysalis("evolve", flag, value, cwd=workspace), 2, needle)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"replay": 0}, "replay must be 1 or more, got 0"),
        ({"candidates": -1}, "candidates must be 0 or more, got -1"),
        ({"replay": "6"}, "replay must be a whole number, 1 or more, got '6'"),
        ({"margin": 1.5}, "margin must be a number from 0 to 1, got 1.5"),
        ({"judge_model": " "}, "judge_model must be a non-empty string, got ' '"),
        ({"dry_run": "yes"}, "dry_run must be True or False, got 'yes'"),
    ],
)
def test_bad_evolve_options_are_value_errors_naming_the_option(given: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=re.escape(message)) as raised:
        EvolveOptions(**given)
    assert isinstance(raised.value, ValueError) and raised.value.option == next(iter(given))


def test_a_judge_model_given_as_an_argument_scores_the_plans(stores: Stores) -> None:
    record_failure(stores, "bad1", "fix subtract", "the change is unchecked")
    calls: list[str] = []
    judged: list[str] = []
    judge = fake_agent_models(LESSON, judged)
    options = EvolveOptions(candidates=1, judge_model="openai:never-used")  # the argument wins over the name
    result = asyncio.run(
        evolution.evolve_agent(stores, options, model=fake_agent_models(LESSON, calls), judge_model=judge)
    )
    assert "judge" not in calls and judged == ["judge", "judge"]
    assert result.calls == len(calls) + len(judged)
