"""The apply step asks the caller's policy (``Authorise``), as write_file's gate would: rules, mode, level, approval."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.gate.patches import patch_authoriser
from chrysalis.agent.toolset import Approver
from chrysalis.events import ApprovalRequest, Event, RepairEnd
from chrysalis.llm.sampling import Sampler
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.repair import Authorise, RepairConfig, Repairer, RepairReport
from chrysalis.tools.policy import Policy
from chrysalis.tools.rules import Rule
from chrysalis.voting import VotingConfig
from tests.repair.conftest import FIXED_LINE, STATS

RIGHT = json.dumps({"line": 6, "code": "return total / len(values)"})
SOURCE = "/proj/.chrysalis/config.toml"
PYTEST = "python -m pytest -q -p no:cacheprovider"


def repair(project: Path, events: list[Event], authorise: Authorise) -> RepairReport:
    backend = ScriptedChatBackend([RIGHT], supports_json_schema=True)
    config = RepairConfig(PYTEST, samples=1, voting=VotingConfig(n=1, k=1), suspects=1, templates=0)
    repairer = Repairer(project, Sampler(backend, max_tokens=300), config, emit=events.append, authorise=authorise)
    return asyncio.run(repairer.run())


def approver(answer: bool, asked: list[dict[str, Any]]) -> Approver:
    async def approve(tool: str, args: dict[str, Any], reason: str) -> bool:
        asked.append({"tool": tool, "reason": reason} | args)
        return answer

    return approve


@pytest.mark.parametrize(
    ("policy", "by", "says"),
    [
        (
            Policy(level=3, mode="code", rules=(Rule.parse("edit_file(stats.py)", "deny", SOURCE),)),
            "rule",
            f"the rule deny edit_file(stats.py) ({SOURCE}) forbids writing stats.py.",
        ),
        (Policy(level=3, mode="architect"), "mode", "In 'architect' mode only plan and doc files"),
        (Policy(level=1, mode="code"), "level", "Rerun with --level 2"),
        (
            Policy(level=2, mode="code"),
            "confirmation",
            "it needs your approval. It was not applied: no one can approve it here (rerun with --yes).",
        ),
    ],
)
def test_a_winner_the_policy_does_not_let_write_its_file_is_not_applied(
    project: Path, policy: Policy, by: str, says: str
) -> None:
    events: list[Event] = []
    report = repair(project, events, patch_authoriser(policy, None, run_id="r1", emit=events.append))
    assert report.success and not report.applied and report.winner is not None
    assert report.refusal is not None and report.refusal.by == by and says in report.refusal.reason
    assert (project / "stats.py").read_text() == STATS
    end = events[-1]
    assert isinstance(end, RepairEnd) and end.success and not end.applied and end.problem is None
    assert [e.approved for e in events if isinstance(e, ApprovalRequest)] == ([False] if by == "confirmation" else [])


@pytest.mark.parametrize("answer", [True, False])
def test_at_level_2_the_person_sees_the_patched_file_and_decides(project: Path, answer: bool) -> None:
    events: list[Event] = []
    asked: list[dict[str, Any]] = []
    authorise = patch_authoriser(Policy(level=2, mode="code"), approver(answer, asked), run_id="r1", emit=events.append)
    report = repair(project, events, authorise)
    (question,) = asked
    assert question["tool"] == "write_file" and question["path"] == "stats.py" and FIXED_LINE in question["content"]
    assert "'patch' changes the workspace" in question["reason"]
    assert report.success and report.applied == answer
    assert (FIXED_LINE in (project / "stats.py").read_text()) == answer
    if not answer:
        assert report.refusal is not None and report.refusal.reason.endswith(
            "It was not applied: the user declined it."
        )
    (request,) = [e for e in events if isinstance(e, ApprovalRequest)]
    assert request.approved == answer and request.call_id == "r1-patch-1"


def test_a_file_changed_while_the_person_was_asked_is_not_overwritten(project: Path) -> None:
    async def edits_then_approves(tool: str, args: dict[str, Any], reason: str) -> bool:
        (project / "stats.py").write_text(STATS + "\n# edited meanwhile\n")
        return True

    report = repair(
        project, [], patch_authoriser(Policy(level=2, mode="code"), edits_then_approves, run_id="r1", emit=print)
    )
    assert not report.applied and report.refusal is None and "changed while repair ran" in str(report.problem)
    assert (project / "stats.py").read_text().endswith("# edited meanwhile\n")
