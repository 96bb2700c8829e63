"""The guards' bookkeeping, on the exact reports the shell and run_tests tools produce."""

from __future__ import annotations

from chrysalis.agent.guards import MAX_FINISH_REJECTIONS, RunGuards


def test_a_passing_run_tests_report_counts_as_a_passing_check() -> None:
    guards = RunGuards()
    guards.record_result("write", True)
    guards.record_result("shell", True, "$ python -m pytest -q\nexit code 0\n3 passed")
    assert guards.finish_feedback(can_run_commands=True) is None


def test_a_failing_check_after_a_change_refuses_to_finish_at_most_twice() -> None:
    guards = RunGuards()
    guards.record_result("write", True)
    guards.record_result("shell", True, "exit code 1\n1 failed")
    feedback = [guards.finish_feedback(can_run_commands=True) for _ in range(MAX_FINISH_REJECTIONS + 1)]
    assert all(f and "failed" in f for f in feedback[:MAX_FINISH_REJECTIONS])
    assert feedback[-1] is None
    assert guards.unverified_change(can_run_commands=True)  # still not done: the run cannot count as a success


def test_a_failing_check_without_a_change_is_an_answer_not_a_failure() -> None:
    guards = RunGuards()
    guards.record_result("shell", True, "exit code 1\n1 failed")  # "why does this test fail?"
    assert guards.finish_feedback(can_run_commands=True) is None
    assert guards.unverified_change(can_run_commands=True) is None


def test_unchecked_change_is_refused_and_nothing_is_refused_without_commands() -> None:
    guards = RunGuards()
    guards.record_result("write", True)
    assert guards.finish_feedback(can_run_commands=False) is None
    assert "not checked" in (guards.finish_feedback(can_run_commands=True) or "")


def test_a_write_resets_the_repeat_counter() -> None:
    guards = RunGuards()
    assert guards.repeated_call("read_file", {"path": "a"}) is None
    assert guards.repeated_call("read_file", {"path": "a"}) is None
    assert guards.repeated_call("read_file", {"path": "a"}) is not None
    guards.record_result("write", True)
    assert guards.repeated_call("read_file", {"path": "a"}) is None


TOOLS = ("list_dir", "read_file")


def test_an_answer_that_only_writes_a_call_as_text_is_refused_at_most_twice() -> None:
    guards = RunGuards()
    answer = "list_dir(ws, depth: 1): ['calc.py', 'tests/']"
    feedback = [guards.pretended_call_feedback(answer, TOOLS) for _ in range(MAX_FINISH_REJECTIONS + 1)]
    assert all(f and "list_dir as text" in f for f in feedback[:MAX_FINISH_REJECTIONS])
    assert feedback[-1] is None
    assert guards.red_flags == MAX_FINISH_REJECTIONS


def test_answers_that_mention_tools_or_quote_a_real_call_are_accepted() -> None:
    guards = RunGuards()
    assert guards.pretended_call_feedback("I used read_file(calc.py) and fixed it.", TOOLS) is None
    assert guards.pretended_call_feedback("print(1) is the program.", TOOLS) is None  # not a tool
    guards.repeated_call("list_dir", {"depth": 1})  # the call did run
    assert guards.pretended_call_feedback("list_dir(.): ['calc.py']", TOOLS) is None
    assert "read_file" in (guards.pretended_call_feedback("`read_file(path='x')`", TOOLS) or "")


def test_edits_that_did_not_apply_still_hold_the_run_to_its_failing_check() -> None:
    guards = RunGuards()
    guards.record_result("shell", True, "exit code 1\n1 failed")
    guards.record_result("write", False)  # the edit was refused: nothing changed
    assert "failed" in (guards.finish_feedback(can_run_commands=True) or "")
    assert guards.unverified_change(can_run_commands=True)
