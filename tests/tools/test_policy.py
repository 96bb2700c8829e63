from __future__ import annotations

from typing import Any

import pytest

from chrysalis.tools.base import ToolSpec
from chrysalis.tools.policy import Decision, Policy, mode_allows
from chrysalis.tools.registry import builtin_tools

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
