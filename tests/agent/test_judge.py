"""The security judge (``--judge MODEL``): labels commands before they run, can only make a run stricter."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.judge import parse_verdict
from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.errors import PolicyDenied
from chrysalis.events import ApprovalRequest, Event, JudgeVerdict, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from tests.helpers import assert_clean_error, chrysalis


class Judge:
    """A judge model that answers ``reply`` (or raises it) and records each prompt."""

    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.prompts: list[str] = []
        self.model = FunctionModel(self.respond, model_name="judge")

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest) and not info.function_tools
        self.prompts.append("".join(str(p.content) for p in request.parts if isinstance(p, UserPromptPart)))
        if isinstance(self.reply, Exception):
            raise self.reply
        return ModelResponse(parts=[TextPart(self.reply)])


def run_with_judge(
    workspace: Path, judge: Judge, steps: list[Any], *, approve: bool | None = None, **flags: Any
) -> tuple[list[Event], list[str]]:
    """Run ``steps`` with ``judge``; ``approve`` None means no one can approve. Returns events and approval reasons."""
    events: list[Event] = []
    reasons: list[str] = []

    async def approver(name: str, args: dict[str, Any], reason: str) -> bool:
        reasons.append(reason)
        return bool(approve)

    settings = load_settings({"workspace": workspace, "judge": "test:judge", **flags})
    session = AgentSession(
        settings,
        model=ScriptedModel(steps).model(),
        on_event=events.append,
        approver=approver if approve is not None else None,
        judge_model=judge.model,
    )
    try:
        asyncio.run(session.run("do it"))
    except PolicyDenied:
        pass
    finally:
        session.close()
    return events, reasons


TOUCH = [tool("shell", command="touch made.txt"), final("done")]


@pytest.mark.parametrize(
    ("reply", "safe"),
    [
        ("[SAFE] it only creates a file in the project", True),
        ("[safe] lower case counts", True),
        ("[UNSAFE] it deletes the home folder", False),
        ("[SAFE] or [UNSAFE]? hard to say", False),
        ("Looks fine to me.", False),
        ("", False),
    ],
)
def test_only_a_clear_safe_label_is_safe(reply: str, safe: bool) -> None:
    assert parse_verdict(reply)[0] is safe


def test_an_unlabelled_reply_says_so() -> None:
    assert "no [SAFE] or [UNSAFE] label" in parse_verdict("Looks fine to me.")[1]


def test_a_safe_command_runs_and_the_verdict_is_shown_in_the_approval(workspace: Path) -> None:
    judge = Judge("[SAFE] creates one empty file in the workspace.")
    events, reasons = run_with_judge(workspace, judge, TOUCH, approve=True, level=3)

    assert (workspace / "made.txt").exists()
    assert "touch made.txt" in judge.prompts[0] and "Security Auditor" in judge.prompts[0]
    verdicts = [e for e in events if isinstance(e, JudgeVerdict)]
    assert [(v.tool, v.safe, v.model) for v in verdicts] == [("shell", True, "test:judge")]
    assert len(reasons) == 1 and "[SAFE]: creates one empty file" in reasons[0]


def test_an_unsafe_command_is_refused_unattended_even_with_yes(workspace: Path, chrysalis_home: Path) -> None:
    judge = Judge("[UNSAFE] it would delete the project.")
    events, _ = run_with_judge(workspace, judge, TOUCH, level=3, yes=True)

    assert not (workspace / "made.txt").exists()
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert not result.ok and "[UNSAFE]: it would delete the project" in (result.error or "")
    assert "person's approval" in (result.error or "")
    traced = [json.loads(line) for line in (chrysalis_home / "traces.jsonl").read_text().splitlines()]
    assert [(t["type"], t["safe"]) for t in traced if t["type"] == "judge"] == [("judge", False)]


def test_an_unsafe_command_is_put_to_the_user_even_with_yes(workspace: Path) -> None:
    judge = Judge("[UNSAFE] it writes outside the project.")
    events, reasons = run_with_judge(workspace, judge, TOUCH, approve=False, level=3, yes=True)

    assert len(reasons) == 1 and "[UNSAFE]" in reasons[0]
    assert [e.approved for e in events if isinstance(e, ApprovalRequest)] == [False]
    assert not (workspace / "made.txt").exists()


def test_a_person_may_still_run_what_the_judge_calls_unsafe(workspace: Path) -> None:
    judge = Judge("[UNSAFE] unusual.")
    run_with_judge(workspace, judge, TOUCH, approve=True, level=3, yes=True)
    assert (workspace / "made.txt").exists()


def test_a_judge_that_fails_fails_closed(workspace: Path) -> None:
    judge = Judge(ConnectionError("judge server down"))
    events, _ = run_with_judge(workspace, judge, TOUCH, level=3, yes=True)

    verdict = next(e for e in events if isinstance(e, JudgeVerdict))
    assert not verdict.safe and "judge server down" in verdict.reason
    assert not (workspace / "made.txt").exists()


def test_the_judge_sees_only_commands_the_policy_lets_through(workspace: Path) -> None:
    judge = Judge("[SAFE] fine")
    steps = [
        tool("read_file", path="calc.py"),
        tool("edit_file", path="calc.py", old_text="a + b", new_text="a - b"),
        tool("shell", command="touch made.txt"),
        final("done"),
    ]
    run_with_judge(workspace, judge, steps, level=0)  # reads only: the edit and the command are refused by level
    assert judge.prompts == []


def test_the_cli_names_a_bad_judge_model(workspace: Path, chrysalis_home: Path) -> None:
    done = chrysalis("run", "anything", "--judge", "openai:", "--workspace", str(workspace))
    assert_clean_error(done, 2, "--judge")


@pytest.mark.parametrize("off", ["off", "", "none"])
def test_the_judge_can_be_turned_off(off: str, workspace: Path) -> None:
    assert load_settings({"workspace": workspace, "judge": off}).judge is None


def test_a_judge_without_its_key_is_a_clear_usage_error(workspace: Path, chrysalis_home: Path) -> None:
    done = chrysalis(
        "run",
        "anything",
        "--judge",
        "anthropic:claude-haiku",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--workspace",
        str(workspace),
        env={"COLUMNS": "300"},
    )
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    assert (
        "--judge anthropic:claude-haiku" in done.stdout and "ANTHROPIC_API_KEY" in done.stdout
    )  # the run's error event
