"""Honest outcomes: after the model's answer Chrysalis runs the project's tests itself, and the result follows them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from chrysalis.agent.guards import RunGuards
from chrysalis.agent.verify import FinalCheck, asks_for_a_change, asks_for_a_fix
from chrysalis.config import load_settings
from chrysalis.events import Check, Event, RedFlag
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from chrysalis.tools import sandbox
from chrysalis.tools.policy import Policy
from chrysalis.tools.sandbox import Backend
from tests.helpers import run_agent

BUG = "    return a + b\n"
FIX = "    return a - b\n"
WRONG = "    return a * b\n"
TASK = "fix the bug so that the test passes"


def checks(events: list[Event]) -> list[Check]:
    return [e for e in events if isinstance(e, Check)]


def test_a_fix_the_model_never_checked_is_verified_by_the_framework(workspace: Path) -> None:
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("done")])
    result, events = run_agent(workspace, script, TASK, level=3, yes=True)
    assert result.success and result.verified is True and result.problem is None
    (check,) = checks(events)
    assert check.passed and check.exit_code == 0 and "pytest" in check.command and not check.sandboxed
    assert events[-1] == result  # the result is the final event, one type for both


def test_a_false_claim_of_success_gets_the_test_output_and_a_second_chance(workspace: Path) -> None:
    script = ScriptedModel(
        [
            tool("edit_file", path="calc.py", old_text=BUG, new_text=WRONG),
            final("I ran the tests and it passed."),  # it did not run them, and they fail
            tool("edit_file", path="calc.py", old_text=WRONG, new_text=FIX),
            final("Fixed for real."),
        ]
    )
    result, events = run_agent(workspace, script, TASK, level=3, yes=True)
    assert result.output == "Fixed for real." and result.success and result.verified is True
    assert [c.passed for c in checks(events)] == [False, True]
    seen = [str(getattr(part, "content", "")) for message in script.seen[-1] for part in message.parts]
    feedback = [text for text in seen if "Not done: Chrysalis ran the tests" in text]
    assert feedback and "assert subtract(5, 3) == 2" in feedback[0]  # the model saw pytest's own output
    assert any(isinstance(e, RedFlag) and e.kind == "failed_check" for e in events)


def test_an_answer_the_tests_keep_failing_is_not_a_success(workspace: Path, chrysalis_home: Path) -> None:
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=WRONG), final("done")])
    result, events = run_agent(workspace, script, TASK, level=3, yes=True)
    assert result.output == "done"  # sent back twice, then the answer stands
    assert not result.success and result.verified is False
    assert result.problem and "tests failed" in result.problem and "exit code 1" in result.problem
    assert len(checks(events)) == 1  # nothing changed between the answers: the verdict is reused, not rerun
    with Stores.open(chrysalis_home) as stores:
        assert stores.evals.summary()[0].success_rate == 0.0


def test_without_a_test_command_nothing_can_check_it_and_the_run_succeeds(tmp_path: Path) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    script = ScriptedModel([tool("write_file", path="hello.txt", content="hello\n"), final("Wrote hello.txt.")])
    result, events = run_agent(workspace, script, TASK, level=2, yes=True)
    assert (workspace / "hello.txt").read_text() == "hello\n"
    assert result.success and result.verified is None and result.problem is None
    assert checks(events) == []


def test_a_question_that_changes_nothing_is_not_held_to_failing_tests(workspace: Path) -> None:
    script = ScriptedModel([tool("read_file", path="calc.py"), final("subtract adds instead of subtracting.")])
    result, events = run_agent(workspace, script, "why does the test fail?", level=3, yes=True)
    assert result.success and result.verified is None and checks(events) == []


def test_a_fix_task_that_changes_nothing_cannot_say_done_while_the_tests_fail(workspace: Path) -> None:
    script = ScriptedModel([tool("read_file", path="calc.py"), final("Done."), final("Done, really."), final("Done!")])
    result, events = run_agent(workspace, script, TASK, level=3, yes=True)
    assert not result.success and result.verified is False and "tests failed" in str(result.problem)
    assert [c.passed for c in checks(events)] == [False]  # nothing changed between answers: one run of the tests


@pytest.mark.parametrize(
    ("task", "held"),
    [
        ("fix the failing test", True),
        ("Make the tests pass", True),
        ("repair calc.py", True),
        ("why does the test fail?", False),
        ("explain the bug in subtract", False),
        ("add a docstring to subtract", False),
        ("", False),
    ],
)
def test_which_tasks_ask_for_a_fix(task: str, held: bool) -> None:
    assert asks_for_a_fix(task) is held


ADD = "Add a divide(a, b) function to calc.py"


def test_an_order_to_change_code_answered_without_an_edit_is_not_done(workspace: Path) -> None:
    script = ScriptedModel([final("I added divide."), final("It is there."), final("Done.")])
    result, events = run_agent(workspace, script, ADD, level=2, yes=True)
    assert not result.success and result.verified is False
    assert result.problem == "the task asks for a change to the code, and no file was changed"
    told = [str(getattr(part, "content", "")) for message in script.seen[-1] for part in message.parts]
    assert sum("no file has been changed yet" in text for text in told) == 2  # sent back twice, then it stands
    assert checks(events) == []  # nothing to test: the verdict needs no command


def test_an_order_to_change_code_that_edits_is_judged_as_usual(tmp_path: Path) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    script = ScriptedModel(
        [tool("write_file", path="calc.py", content="def divide(a, b):\n    return a / b\n"), final("ok")]
    )
    result, _ = run_agent(workspace, script, ADD, level=2, yes=True)
    assert result.success and result.verified is None  # no tests here: nothing can check it, nothing claims it


@pytest.mark.parametrize(
    "task",
    [
        ADD,
        "Add divide(a, b) to calc.py; report() passes it on",
        "Fix subtract in calc.py",
        # the situation first, the order after it: the bench's refactor task claimed success with nothing changed
        "subtract and divide in calc.py repeat the same check; extract it into check(a, b) in calc.py",
    ],
)
def test_an_order_to_change_code_whose_edits_never_applied_is_not_done_though_the_tests_pass(
    workspace: Path, task: str
) -> None:
    (workspace / "calc.py").write_text("def subtract(a, b):\n" + FIX)  # the tests pass before the run
    missing = tool("edit_file", path="calc.py", old_text="def divide", new_text="def divide(a, b)")
    script = ScriptedModel([missing, final("I added divide."), final("Done."), final("Done.")])
    result, events = run_agent(workspace, script, task, level=2, yes=True)
    assert not result.success and result.verified is False
    assert result.problem == "the task asks for a change to the code, and no file was changed"
    assert [c.passed for c in checks(events)] == [True]  # the tests ran and passed, as they did before the run


def test_an_order_to_change_code_answered_after_only_running_the_tests_is_not_done(workspace: Path) -> None:
    (workspace / "calc.py").write_text("def subtract(a, b):\n" + FIX)
    answers = [final("The tests pass, so divide is there."), final("Done."), final("Done.")]
    script = ScriptedModel([tool("run_tests"), *answers])
    result, _ = run_agent(workspace, script, ADD, level=2, yes=True)
    assert not result.success and result.problem == "the task asks for a change to the code, and no file was changed"


def test_an_order_to_change_code_whose_write_was_declined_is_not_blamed_for_changing_nothing(
    workspace: Path,
) -> None:
    (workspace / "calc.py").write_text("def subtract(a, b):\n" + FIX)
    write = tool("write_file", path="calc.py", content="def divide(a, b):\n    return a / b\n")
    result, events = run_agent(workspace, ScriptedModel([write, final("I could not write it.")]), ADD, level=2)
    assert any(e.type == "tool_result" and not e.ok for e in events)  # no approver here: the write was declined
    assert result.problem != "the task asks for a change to the code, and no file was changed"


@pytest.mark.parametrize(
    ("task", "held"),
    [
        (ADD, True),
        ("Rename calc_total to invoice_total everywhere", True),
        ("please fix the two bugs in parser.py", True),
        ("In calc.py, add divide", False),  # not judged: no sentence or clause starts with the order
        ("sum and mean repeat a loop; extract it into a helper", True),
        ("Two bugs make the tests fail: the sum and the mean. Fix both so the tests pass.", True),
        ("The tests fail.\nFix calc.py", True),
        ("Refactor", True),
        ("Explain the bug in calc.py. Do not change any file.", False),
        ("Update: the tests pass now. Why is it slow?", False),
        ("What should I change? Tell me, I will add it myself.", False),
        ("List the files I should change", False),
        ("Write a summary of what calc.py does", False),  # may well want only an answer
        ("Add what to calc.py?", False),
        ("why does the test fail?", False),
    ],
)
def test_which_tasks_are_orders_to_change_code(task: str, held: bool) -> None:
    assert asks_for_a_change(task) is held


def test_the_configured_test_command_is_the_check(workspace: Path) -> None:
    (workspace / "check.py").write_text("import sys\nsys.exit(0 if open('calc.py').read().count('-') else 4)\n")
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("done")])
    result, events = run_agent(workspace, script, TASK, level=3, yes=True, test_command="python check.py")
    assert result.verified is True and checks(events)[0].command == "python check.py"


def test_a_check_that_cannot_run_is_a_failure_that_says_how_to_fix_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "probe", lambda kind: Backend(kind, problem="no user namespaces (test)"))
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("done")])
    result, events = run_agent(workspace, script, TASK, level=2, yes=True)  # level 2: the check runs in the sandbox
    assert not result.success and result.verified is False
    assert result.problem and "could not run" in result.problem and "no user namespaces (test)" in result.problem
    assert "--unsafe-no-sandbox" in result.problem
    (check,) = checks(events)
    assert not check.passed and check.exit_code is None and check.sandboxed
    assert not any(isinstance(e, RedFlag) for e in events)  # not sent back: the model cannot install a sandbox


def test_below_level_3_with_yes_the_check_runs_in_the_read_only_sandbox(workspace: Path) -> None:
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text=BUG, new_text=FIX), final("done")])
    result, events = run_agent(workspace, script, TASK, level=2, yes=True)
    (check,) = checks(events)
    assert check.sandboxed and check.passed and result.verified is True


def test_the_check_follows_the_run_s_policy_not_a_second_one_built_from_the_settings(workspace: Path) -> None:
    (workspace / "check.py").write_text("open('made.txt', 'w').write('x')\n")
    settings = load_settings({"workspace": workspace, "level": 1, "test_command": "python check.py"})
    events: list[Event] = []
    guards = RunGuards(changed_files=True)
    writable = FinalCheck(settings, "r1", events.append, policy=Policy(level=3, mode="code", auto_approve=True))
    assert asyncio.run(writable.run(guards)).verified is True and (workspace / "made.txt").exists()
    asking = FinalCheck(settings, "r2", events.append, policy=Policy(level=3, mode="ask", auto_approve=True))
    assert not asking.needed(guards)  # the run's mode, not the settings': nothing checks an ask-mode run
    assert [check.sandboxed for check in checks(events)] == [False]
