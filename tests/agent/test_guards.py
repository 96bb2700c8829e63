"""The guards' bookkeeping, on the exact reports the shell and run_tests tools produce."""

from __future__ import annotations

from chrysalis.agent.guards import MAX_PRETEND_REJECTIONS, RunGuards


def test_a_write_or_a_command_on_the_real_workspace_holds_the_run_to_its_tests() -> None:
    guards = RunGuards()
    guards.record_result("shell", True)  # sandboxed, or run_tests: it changed nothing
    assert not guards.set_out_to_change and guards.activity == 1
    guards.record_result("shell", True, on_real_workspace=True)  # `sed -i` at level 3 may have changed files
    assert guards.set_out_to_change and guards.changed_files and guards.activity == 2


def test_an_edit_that_did_not_apply_still_counts_as_setting_out_to_change() -> None:
    guards = RunGuards()
    guards.record_result("write", False)  # refused or not applied: nothing changed, but the run tried
    assert guards.set_out_to_change and not guards.changed_files
    assert guards.activity == 1 and guards.write_generation == 0


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
    feedback = [guards.pretended_call_feedback(answer, TOOLS) for _ in range(MAX_PRETEND_REJECTIONS + 1)]
    assert all(f and "list_dir as text" in f for f in feedback[:MAX_PRETEND_REJECTIONS])
    assert feedback[-1] is None
    assert guards.red_flags == MAX_PRETEND_REJECTIONS


def test_answers_that_mention_tools_or_quote_a_real_call_are_accepted() -> None:
    guards = RunGuards()
    assert guards.pretended_call_feedback("I used read_file(calc.py) and fixed it.", TOOLS) is None
    assert guards.pretended_call_feedback("print(1) is the program.", TOOLS) is None  # not a tool
    guards.repeated_call("list_dir", {"depth": 1})  # the call did run
    assert guards.pretended_call_feedback("list_dir(.): ['calc.py']", TOOLS) is None
    assert "read_file" in (guards.pretended_call_feedback("`read_file(path='x')`", TOOLS) or "")
