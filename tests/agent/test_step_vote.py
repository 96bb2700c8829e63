"""Voting in the agent's own steps: which steps are critical, how candidates are counted, and a voted run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from chrysalis.agent.step_vote import StepVoting, call_key, critical_reason, is_destructive, red_flag
from chrysalis.events import Start, StepVote
from chrysalis.stores import Stores
from tests.helpers import run_agent

EFFECTS: dict[str, Any] = {"write_file": "write", "read_file": "read", "shell": "shell"}


def reply(*calls: tuple[str, dict[str, Any]], text: str = "") -> ModelResponse:
    parts: list[Any] = [TextPart(text)] if text else []
    return ModelResponse(parts=[*parts, *(ToolCallPart(name, args) for name, args in calls)])


@pytest.mark.parametrize(
    ("command", "destructive"),
    [
        ("rm -rf build", True),
        ("rm notes.txt", True),
        ("git push --force origin main", True),
        ("git reset --hard HEAD~3", True),
        ("git clean -fd", True),
        ("find . -name '*.pyc' -delete", True),
        ("python -m pytest -q", False),
        ("ls -la && cat README.md", False),
        ("git push origin main", False),
        ("grep -rn 'rm -rf' docs", True),  # a false alarm costs a vote, never a wrong step
    ],
)
def test_destructive_commands_are_told_apart(command: str, destructive: bool) -> None:
    assert is_destructive(command) is destructive


def test_which_triggers_a_run_has_on() -> None:
    assert StepVoting.for_run("none", 0.6, None).triggers == ["destructive"]
    assert StepVoting.for_run("medium", 0.6, 0.9).triggers == ["destructive", "writes"]
    assert StepVoting.for_run("low", 0.6, 0.25).triggers == ["destructive", "low_success_rate"]
    assert StepVoting.for_run("none", 0.6, None).config().k == 2  # a destructive step is voted at medium at least
    assert StepVoting.for_run("critical", 0.6, None).config().n == 7


def test_a_step_is_critical_for_a_destructive_command_a_write_at_medium_or_any_step_when_runs_fail() -> None:
    quiet, medium, failing = (
        StepVoting.for_run("none", 0.6, None),
        StepVoting.for_run("medium", 0.6, None),
        StepVoting.for_run("none", 0.6, 0.2),
    )
    write = reply(("write_file", {"path": "a.py", "content": "x = 1\n"}))
    read = reply(("read_file", {"path": "a.py"}))
    wipe = reply(("shell", {"command": "rm -rf src"}))
    assert critical_reason(wipe, EFFECTS, quiet) == "destructive"
    assert critical_reason(write, EFFECTS, quiet) is None
    assert critical_reason(write, EFFECTS, medium) == "writes"
    assert critical_reason(read, EFFECTS, medium) is None
    assert critical_reason(read, EFFECTS, failing) == "low_success_rate"


def test_candidates_are_counted_by_their_calls_whatever_the_order_of_arguments_or_the_spacing_of_answers() -> None:
    one = reply(("write_file", {"path": "a.py", "content": "x"}))
    same = reply(("write_file", {"content": "x", "path": "a.py"}), text="Writing it.")
    assert call_key(one) == call_key(same)
    assert call_key(reply(text="Done.  All   good")) == call_key(reply(text="Done. All good"))
    assert call_key(one) != call_key(reply(("write_file", {"path": "b.py", "content": "x"})))


def test_red_flags_on_a_candidate() -> None:
    tools = {"write_file", "read_file"}
    assert red_flag(reply(("read_file", {"path": "a"})), tools) is None
    assert red_flag(reply(("delete_everything", {})), tools) == "malformed"
    assert red_flag(reply(("write_file", {"path": "a", "content": "x" * 20_000})), tools) == "too_long"
    assert red_flag(reply(("read_file", {"path": "a"}), text="I'm not sure, maybe this file"), tools) == "hedging"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """A workspace with no tests: nothing checks the run's answer, so each run is the steps under test alone."""
    folder = tmp_path / "notes"
    folder.mkdir()
    return folder


def _wrote(messages: list[ModelMessage]) -> bool:
    return any(isinstance(part, ToolReturnPart) for message in messages for part in getattr(message, "parts", []))


def writer(drawn: list[float]) -> Any:
    """Voter 0 (temperature 0) writes the wrong content; warmer voters write the right one; then it answers."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        temperature = float((info.model_settings or {}).get("temperature", 0.0))
        drawn.append(temperature)
        if _wrote(messages):
            return ModelResponse(parts=[TextPart("Wrote answer.txt.")])
        content = "wrong\n" if temperature == 0.0 else "right\n"
        return reply(("write_file", {"path": "answer.txt", "content": content}))

    return respond


def test_a_write_at_the_default_priority_is_voted_and_the_leading_candidate_runs(notes: Path) -> None:
    drawn: list[float] = []
    result, events = run_agent(notes, FunctionModel(writer(drawn)), "write the answer", level=2, mode="code", yes=True)
    assert result.success, result
    assert (notes / "answer.txt").read_text() == "right\n"
    start = next(e for e in events if isinstance(e, Start))
    assert start.voting is not None and start.voting["triggers"] == ["destructive", "writes"]
    votes = [e for e in events if isinstance(e, StepVote)]
    assert len(votes) == 1
    vote = votes[0]
    assert vote.trigger == "writes" and vote.consensus and vote.step == 1
    assert vote.candidates == {
        'write_file {"content": "wrong\\n", "path": "answer.txt"}': 1,
        'write_file {"content": "right\\n", "path": "answer.txt"}': 3,
    }
    assert vote.winner.startswith('write_file {"content": "right')
    assert sorted(drawn[:4]) == [0.0, 0.4, 0.5, pytest.approx(0.6)]  # voter i at its own temperature


def test_a_streamed_step_is_voted_too_and_the_winner_replaces_the_streamed_reply(notes: Path) -> None:
    """pydantic-ai reads a streamed step's reply from the stream after it closes: the winner must be what it reads."""
    drawn: list[float] = []
    respond = writer(drawn)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        response = respond(messages, info)
        for part in response.parts:
            if isinstance(part, TextPart):
                yield part.content
            else:
                yield {0: DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str())}

    model = FunctionModel(respond, stream_function=stream)
    _, events = run_agent(notes, model, "write the answer", level=2, mode="code", yes=True)
    assert (notes / "answer.txt").read_text() == "right\n"
    assert [e.trigger for e in events if isinstance(e, StepVote)] == ["writes"]


def test_a_cheap_run_does_not_vote_on_writes(notes: Path) -> None:
    drawn: list[float] = []
    _, events = run_agent(
        notes, FunctionModel(writer(drawn)), "write the answer", level=2, mode="code", priority="cheap", yes=True
    )
    assert (notes / "answer.txt").read_text() == "wrong\n"
    assert not [e for e in events if isinstance(e, StepVote)]
    assert drawn == [0.0, 0.0]


@pytest.mark.parametrize(("priority", "voting", "voted"), [("best", "none", False), ("cheap", "medium", True)])
def test_the_voting_setting_overrides_the_prioritys_level(notes: Path, priority: str, voting: str, voted: bool) -> None:
    drawn: list[float] = []
    _, events = run_agent(
        notes,
        FunctionModel(writer(drawn)),
        "write the answer",
        level=2,
        mode="code",
        priority=priority,
        voting=voting,
        yes=True,
    )
    start = next(e for e in events if isinstance(e, Start))
    assert start.voting is not None and start.voting["level"] == voting
    assert start.priority_plan is not None and start.priority_plan["voting"] == voting
    assert bool([e for e in events if isinstance(e, StepVote)]) is voted
    assert (notes / "answer.txt").read_text() == ("right\n" if voted else "wrong\n")


def test_every_step_is_voted_when_this_task_type_rarely_succeeds_on_this_model(notes: Path) -> None:
    from chrysalis.config import load_settings

    drawn: list[float] = []
    flags: dict[str, Any] = {"level": 2, "mode": "code", "priority": "cheap", "yes": True}
    _, first = run_agent(notes, FunctionModel(writer(drawn)), "write the answer", **flags)
    start = next(e for e in first if isinstance(e, Start))
    assert start.voting is not None and start.voting["success_rate"] is None  # one run is too few to judge
    stores = Stores.open(load_settings({"workspace": notes}).home)
    try:
        for i in range(3):
            stores.evals.log(
                run_id=f"failed-{i}",
                profile=start.profile,
                task_type=start.task_type,
                model=start.model,
                success=False,
                duration_ms=1.0,
                cost_usd=0.0,
                input_tokens=1,
                output_tokens=1,
            )
    finally:
        stores.close()
    (notes / "answer.txt").unlink()
    _, events = run_agent(notes, FunctionModel(writer(drawn)), "write the answer", **flags)
    start = next(e for e in events if isinstance(e, Start))
    assert start.voting is not None and start.voting["success_rate"] == 0.25  # the first run succeeded, 3 failed
    assert start.voting["triggers"] == ["destructive", "low_success_rate"]
    assert [e.trigger for e in events if isinstance(e, StepVote)] == ["low_success_rate", "low_success_rate"]
    assert (notes / "answer.txt").read_text() == "right\n"

    (notes / "answer.txt").unlink()  # the user says no voting: the record does not turn it back on
    _, events = run_agent(notes, FunctionModel(writer(drawn)), "write the answer", **flags, voting="none")
    start = next(e for e in events if isinstance(e, Start))
    assert start.voting is not None and start.voting["success_rate"] is not None
    assert start.voting["success_rate"] < 0.6  # the record is as low as before (the last run counts too)
    assert start.voting["triggers"] == ["destructive"]
    assert [e for e in events if isinstance(e, StepVote)] == []
