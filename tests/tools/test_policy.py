from __future__ import annotations

from typing import Any, cast

import pytest

from chrysalis.tools.base import ToolArgs, ToolError, ToolResult, ToolSpec
from chrysalis.tools.mcp_client import McpArgs, McpToolSpec
from chrysalis.tools.policy import Decision, NarrowingRefused, Policy, mode_allows
from chrysalis.tools.registry import builtin_tools
from chrysalis.tools.rules import Action, Rule

TOOLS = builtin_tools()


def call(name: str, raw: dict[str, Any], **kw: Any) -> Decision:
    tool: ToolSpec = TOOLS[name]
    options: dict[str, Any] = {"level": 3, "mode": "code", "auto_approve": True, "protect_tests": False} | kw
    return Policy(**options).decide(tool, tool.args.model_validate(raw))


WRITE = ("write_file", {"path": "src/x.py", "content": ""})
EDIT = ("edit_file", {"path": "src/x.py", "old_text": "a", "new_text": "b"})
PATCH = ("apply_patch", {"patch": "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"})
SHELL = ("shell", {"command": "ls"})
READ = ("read_file", {"path": "src/x.py"})
FETCH = ("web_fetch", {"url": "https://example.com"})


def test_every_builtin_declares_a_sensible_effect_and_level() -> None:
    assert {name: (spec.effect, spec.level) for name, spec in TOOLS.items()} == {
        "read_file": ("read", 0),
        "list_dir": ("read", 0),
        "find": ("read", 0),
        "grep": ("read", 0),
        "edit_file": ("write", 2),
        "write_file": ("write", 2),
        "apply_patch": ("write", 2),
        "shell": ("shell", 1),
        "run_tests": ("shell", 1),
        "git_status": ("read", 0),
        "git_diff": ("read", 0),
        "git_log": ("read", 0),
        "git_commit": ("write", 2),
        "system_stats": ("read", 0),
        "web_fetch": ("network", 1),
        "web_search": ("network", 1),
    }


# level x tool: what each level allows in code mode with --yes
@pytest.mark.parametrize(
    ("level", "allowed"),
    [
        (0, {"read_file"}),
        (1, {"read_file", "web_fetch", "shell"}),
        (2, {"read_file", "web_fetch", "shell", "write_file", "edit_file", "apply_patch"}),
        (3, {"read_file", "web_fetch", "shell", "write_file", "edit_file", "apply_patch"}),
    ],
)
def test_levels_in_code_mode(level: int, allowed: set[str]) -> None:
    for name, raw in (READ, FETCH, SHELL, WRITE, EDIT, PATCH):
        decision = call(name, raw, level=level)
        assert decision.allowed == (name in allowed), (name, level, decision)


@pytest.mark.parametrize(("level", "call_", "needed"), [(0, FETCH, 1), (0, SHELL, 1), (1, WRITE, 2), (1, PATCH, 2)])
def test_level_too_low_is_denied_naming_the_level(level: int, call_: tuple[str, dict[str, Any]], needed: int) -> None:
    decision = call(*call_, level=level)
    assert decision.kind == "deny"
    assert f"needs security level {needed}" in decision.reason
    assert f"--level {needed}" in decision.reason


@pytest.mark.parametrize("call_", [WRITE, EDIT, PATCH, SHELL])
def test_ask_mode_denies_writes_and_commands_naming_the_mode(call_: tuple[str, dict[str, Any]]) -> None:
    decision = call(*call_, mode="ask")
    assert decision.kind == "deny"
    assert "not allowed in 'ask' mode" in decision.reason
    assert "--mode" in decision.reason


@pytest.mark.parametrize("mode", ["ask", "architect", "code", "semantic"])
def test_reads_are_allowed_in_every_mode(mode: str) -> None:
    assert call(*READ, mode=mode, level=0).allowed


@pytest.mark.parametrize(
    ("call_", "kind"),
    [
        (("write_file", {"path": "README.md", "content": ""}), "allow"),
        (("write_file", {"path": "docs/plan.md", "content": ""}), "allow"),
        (("edit_file", {"path": "docs/design.rst", "old_text": "a", "new_text": "b"}), "allow"),
        (("apply_patch", {"patch": "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+x\n"}), "allow"),
        (WRITE, "deny"),
        (EDIT, "deny"),
        (PATCH, "deny"),
        (("apply_patch", {"patch": "not a diff"}), "deny"),
        (("git_commit", {"message": "x"}), "deny"),
        (SHELL, "deny"),
    ],
)
def test_architect_mode_writes_only_docs(call_: tuple[str, dict[str, Any]], kind: str) -> None:
    decision = call(*call_, mode="architect")
    assert decision.kind == kind, decision
    if kind == "deny" and call_[0] in ("write_file", "edit_file"):
        assert "src/x.py" in decision.reason
        assert "--mode code" in decision.reason


def test_semantic_mode_denies_writes_and_network() -> None:
    assert call(*WRITE, mode="semantic").kind == "deny"
    assert call(*FETCH, mode="semantic").kind == "deny"


@pytest.mark.parametrize(
    "call_",
    [
        ("edit_file", {"path": "tests/test_x.py", "old_text": "a", "new_text": "b"}),
        ("write_file", {"path": "test_calc.py", "content": ""}),
        ("apply_patch", {"patch": "--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-a\n+b\n"}),
    ],
)
def test_protect_tests_denies_test_edits(call_: tuple[str, dict[str, Any]]) -> None:
    decision = call(*call_, protect_tests=True)
    assert decision.kind == "deny"
    assert decision.by == "protected_test"
    assert "Test files are protected" in decision.reason
    assert call(*call_, protect_tests=False).allowed


def test_protect_tests_allows_code_edits() -> None:
    assert call(*EDIT, protect_tests=True).allowed


@pytest.mark.parametrize("call_", [WRITE, EDIT, PATCH, ("git_commit", {"message": "x"})])
def test_level_2_writes_ask_unless_auto_approved(call_: tuple[str, dict[str, Any]]) -> None:
    decision = call(*call_, level=2, auto_approve=False)
    assert decision.kind == "ask"
    assert "needs your approval" in decision.reason
    assert call(*call_, level=2, auto_approve=True).allowed
    assert call(*call_, level=3, auto_approve=False).allowed  # level 3: file writes need no confirmation


def test_level_3_shell_asks_unless_auto_approved() -> None:
    assert call(*SHELL, level=3, auto_approve=False).kind == "ask"
    assert call(*SHELL, level=3, auto_approve=True).allowed
    assert call(*SHELL, level=1, auto_approve=False).allowed  # level 1: sandboxed, nothing to confirm


@pytest.mark.parametrize("path", ["pytest.ini", "tox.ini", "sub/conftest.py"])
def test_test_configuration_is_protected_too(path: str) -> None:
    from chrysalis.tools.policy import is_test_path

    assert is_test_path(path)


@pytest.mark.parametrize("mode", ["ask", "architect", "code", "semantic"])
def test_mode_allows_agrees_with_decide_at_the_highest_level(mode: str) -> None:
    for spec in TOOLS.values():
        if mode == "architect" and spec.effect == "write":
            continue  # allowed for doc paths only: decided per call
        args = spec.args.model_construct()  # the arguments play no part outside architect mode
        allowed_somewhere = Policy(level=3, mode=mode, auto_approve=True).decide(spec, args).allowed
        assert mode_allows(spec, mode) == allowed_somewhere, spec.name


def rules(*texts: tuple[str, str]) -> tuple[Rule, ...]:
    return tuple(Rule.parse(text, cast(Action, action), "/ws/.chrysalis/config.toml") for action, text in texts)


@pytest.mark.parametrize("rule", ["edit_file(src/secret.py)", "write_file(src/*)", "apply_patch(src/**)", "*(*.py)"])
def test_a_deny_rule_of_any_file_tool_forbids_a_patch_of_that_file_naming_the_rule(rule: str) -> None:
    policy = Policy(level=3, mode="code", auto_approve=True, rules=rules(("deny", rule)))
    decision = policy.may_write("src/secret.py")
    assert (decision.kind, decision.by, str(decision.rule)) == ("deny", "rule", rule)
    assert f"the rule deny {rule} (/ws/.chrysalis/config.toml) forbids writing src/secret.py" in decision.reason
    assert policy.may_write("lib/other.py").allowed != rule.startswith("*")  # *.py is a bare name: anywhere


def test_a_rule_of_a_tool_that_writes_no_file_does_not_judge_a_patch() -> None:
    policy = Policy(level=3, mode="code", rules=rules(("deny", "read_file(src/secret.py)"), ("deny", "shell")))
    assert policy.may_write(["src/secret.py"]).allowed


@pytest.mark.parametrize(
    ("policy", "kind", "by", "allow_with"),
    [
        (Policy(level=1, mode="code"), "deny", "level", "--level 2"),
        (Policy(level=3, mode="architect"), "deny", "mode", "--mode code"),
        (Policy(level=3, mode="ask"), "deny", "mode", "--mode code"),
        (Policy(level=3, mode="code", protect_tests=True), "allow", "allowed", None),
        (Policy(level=2, mode="code"), "ask", "confirmation", "--yes"),
        (Policy(level=2, mode="code", auto_approve=True), "allow", "allowed", None),
        (Policy(level=3, mode="code"), "allow", "allowed", None),
    ],
)
def test_a_patch_is_judged_as_write_file_writing_its_file(
    policy: Policy, kind: str, by: str, allow_with: str | None
) -> None:
    decision = policy.may_write("src/calc.py")
    assert (decision.kind, decision.by, decision.allow_with) == (kind, by, allow_with)
    same = policy.decide(
        TOOLS["write_file"], TOOLS["write_file"].args.model_validate({"path": "src/calc.py", "content": ""})
    )
    assert (same.kind, same.by) == (kind, by)


def test_a_patch_of_a_test_or_of_docs_is_judged_by_its_path() -> None:
    assert Policy(level=3, mode="code", protect_tests=True).may_write("tests/test_calc.py").by == "protected_test"
    assert Policy(level=3, mode="architect").may_write(["docs/plan.md", "README.md"]).allowed
    assert Policy(level=3, mode="architect").may_write(["docs/plan.md", "calc.py"]).kind == "deny"


def test_ask_and_allow_rules_judge_a_patch_as_they_judge_a_file_tool() -> None:
    asked = Policy(level=3, mode="code", auto_approve=True, rules=rules(("ask", "edit_file(src/**)")))
    assert asked.may_write("src/calc.py").kind == "ask" and asked.may_write("lib/calc.py").allowed
    allowed = Policy(level=2, mode="code", rules=rules(("allow", "write_file(src/**)")))
    assert allowed.may_write("src/calc.py").allowed and allowed.may_write("lib/calc.py").kind == "ask"


@pytest.mark.parametrize(
    ("mode", "listed"), [("code", {"read_file", "web_fetch", "shell"}), ("ask", {"read_file", "web_fetch"})]
)
def test_lists_what_the_mode_offers_within_the_level(mode: str, listed: set[str]) -> None:
    policy = Policy(level=1, mode=mode)
    shown = {name for name, spec in TOOLS.items() if policy.lists(spec)}
    assert {"read_file", "web_fetch", "shell"} & shown == listed
    assert not shown & {"write_file", "edit_file", "apply_patch", "git_commit"}


@pytest.mark.parametrize(
    ("level", "yes", "commands", "check"),
    [(1, True, False, False), (2, True, False, False), (3, False, True, False), (3, True, True, True)],
)
def test_which_commands_may_write_the_workspace(level: int, yes: bool, commands: bool, check: bool) -> None:
    policy = Policy(level=level, mode="code", auto_approve=yes)
    assert (policy.commands_writable, policy.check_writable) == (commands, check)


def test_a_narrowed_policy_keeps_the_rules_and_takes_the_lower_level_and_mode() -> None:
    parent = Policy(level=3, mode="code", auto_approve=True, protect_tests=True, rules=rules(("deny", "shell")))
    assert parent.narrowed() == parent
    child = parent.narrowed(level=1, mode="architect")
    assert child == Policy(level=1, mode="architect", auto_approve=True, protect_tests=True, rules=parent.rules)


@pytest.mark.parametrize(
    ("level", "mode", "message"),
    [
        (3, None, "A sub-agent may not have level 3: this run has level 2, its most."),
        (None, "code", "A sub-agent may not use mode 'code': it allows more than this run's 'architect'."),
        (None, "semantic", "A sub-agent may not use mode 'semantic': it allows more than this run's 'architect'."),
        (None, "yolo", "Unknown mode 'yolo'; modes: ask, architect, code, semantic."),
    ],
)
def test_a_child_that_asks_for_more_is_refused_naming_what_the_parent_allows(
    level: int | None, mode: str | None, message: str
) -> None:
    with pytest.raises(NarrowingRefused) as refused:
        Policy(level=2, mode="architect").narrowed(level=level, mode=mode)
    assert str(refused.value) == message
    assert isinstance(refused.value, ToolError)  # a sub-agent tool's refusal reaches the model as a failed result


def _writes_through_policy() -> ToolSpec:
    from dataclasses import replace

    return replace(TOOLS["git_commit"], name="repair", writes_through_policy=True)


@pytest.mark.parametrize(
    ("policy", "kind", "by"),
    [
        (Policy(level=2, mode="code"), "allow", "allowed"),  # no confirmation: its writes are asked about
        (Policy(level=3, mode="code"), "allow", "allowed"),
        (Policy(level=1, mode="code"), "deny", "level"),
        (Policy(level=3, mode="architect"), "deny", "mode"),
        (Policy(level=3, mode="ask"), "deny", "mode"),
        (Policy(level=2, mode="code", rules=rules(("ask", "repair"))), "ask", "rule"),
        (Policy(level=2, mode="code", auto_approve=True, rules=rules(("ask", "repair"))), "ask", "rule"),
        (Policy(level=3, mode="code", rules=rules(("deny", "repair"))), "deny", "rule"),
        (Policy(level=3, mode="code", rules=rules(("deny", "write_file"))), "deny", "rule"),
        (Policy(level=3, mode="code", rules=rules(("deny", "edit_file(src/x.py)"))), "allow", "allowed"),
        (Policy(level=2, mode="code", rules=rules(("ask", "write_file"))), "allow", "allowed"),  # asked at the patch
    ],
)
def test_a_tool_whose_writes_go_through_the_policy_is_not_confirmed_itself(policy: Policy, kind: str, by: str) -> None:
    tool = _writes_through_policy()
    decision = policy.decide(tool, tool.args.model_construct())
    assert (decision.kind, decision.by) == (kind, by)


def test_a_tool_whose_writes_go_through_the_policy_is_refused_naming_the_file_tool_rule() -> None:
    tool = _writes_through_policy()
    decision = Policy(level=3, mode="code", rules=rules(("deny", "apply_patch"))).decide(
        tool, tool.args.model_construct()
    )
    assert str(decision.rule) == "apply_patch" and "the rule deny apply_patch" in decision.reason
    plain = TOOLS["git_commit"]  # a tool that writes for itself keeps its confirmation and ignores file-tool rules
    assert Policy(level=2, mode="code").decide(plain, plain.args.model_construct()).by == "confirmation"
    assert (
        Policy(level=3, mode="code", rules=rules(("deny", "write_file")))
        .decide(plain, plain.args.model_construct())
        .allowed
    )


def test_the_judge_reviews_every_call_that_acts_and_no_read() -> None:
    judged = {name for name, spec in TOOLS.items() if Policy(level=3, mode="code").judged(spec)}
    assert judged == {name for name, spec in TOOLS.items() if spec.effect not in ("read", "memory")}
    assert {"write_file", "edit_file", "apply_patch", "git_commit", "shell", "run_tests", "web_fetch"} <= judged
    assert not {"read_file", "grep", "git_diff"} & judged


@pytest.mark.parametrize(("effect", "judged"), [("read", False), ("memory", False), ("network", True)])
def test_the_judge_decides_by_effect_and_reviews_mcp_tools_whatever_their_level(effect: Any, judged: bool) -> None:
    policy = Policy(level=3, mode="code")
    spec = ToolSpec("remember", "", ToolArgs, effect, 0, lambda _a, _c: ToolResult.success(""))
    assert policy.judged(spec) is judged
    assert policy.judged(McpToolSpec("mcp__s__t", "", McpArgs, effect, 0, spec.run, server="s"))


@pytest.mark.parametrize(
    ("task", "asks"),
    [
        ("Rename calc_total to invoice_total everywhere (invoice.py, report.py and the tests).", True),
        ("Add from_roman to roman.py with tests for it", True),
        ("write unit tests for parser.py", True),
        ("fix the failing test", False),
        ("make the tests pass", False),
        ("Fix the bug in calc.py so the tests pass", False),
        ("Change calc.py so that the test passes", False),
        ("Edit calc.py. The tests must pass.", False),
    ],
)
def test_a_task_asks_for_test_changes_only_when_tests_are_the_work(task: str, asks: bool) -> None:
    from chrysalis.tools.protected_tests import asks_for_test_changes

    assert asks_for_test_changes(task) is asks
