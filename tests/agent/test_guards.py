"""The guards' bookkeeping, on the exact reports the shell and run_tests tools produce."""

from __future__ import annotations

from chrysalis.agent.guards import MAX_FINISH_REJECTIONS, RunGuards


def test_a_passing_run_tests_report_counts_as_a_passing_check() -> None:
    guards = RunGuards()
    guards.record_result("write", True)
    guards.record_result("shell", True, "$ python -m pytest -q\nexit code 0\n3 passed")
    assert guards.finish_feedback(can_run_commands=True) is None


def test_a_failing_check_refuses_to_finish_at_most_twice() -> None:
    guards = RunGuards()
    guards.record_result("shell", True, "exit code 1\n1 failed")
    feedback = [guards.finish_feedback(can_run_commands=True) for _ in range(MAX_FINISH_REJECTIONS + 1)]
    assert all(f and "failed" in f for f in feedback[:MAX_FINISH_REJECTIONS])
    assert feedback[-1] is None


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
