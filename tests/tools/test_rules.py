"""Permission rules (Claude Code's syntax) as the policy applies them: deny first, allow never raises the level."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from chrysalis.tools.policy import Decision, Policy
from chrysalis.tools.registry import builtin_tools
from chrysalis.tools.rules import Action, Rule, command_parts
from tests.helpers import assert_clean_error, chrysalis

TOOLS = builtin_tools()


def decide(name: str, raw: dict[str, Any], *rules: tuple[Action, str], level: int = 3, yes: bool = False) -> Decision:
    parsed = tuple(Rule.parse(text, action, "test") for action, text in rules)
    policy = Policy(level=level, mode="code", auto_approve=yes, rules=parsed)
    return policy.decide(TOOLS[name], TOOLS[name].args.model_validate(raw))


def shell(command: str, *rules: tuple[Action, str], yes: bool = False) -> str:
    return decide("shell", {"command": command}, *rules, yes=yes).kind


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pytest", "allow"),
        ("pytest -q tests/a.py", "allow"),
        ("pytest -q && pytest tests/b.py", "allow"),
        ("pytestx", "ask"),  # a prefix is a whole word
        ("pytest; rm -rf ~", "ask"),  # every part must be allowed
        ("pytest | tee out", "ask"),
        ("pytest > /etc/passwd", "ask"),  # redirections: no prefix can tell their effect
        ("pytest $(rm -rf ~)", "ask"),
        ("pytest `id`", "ask"),
        ("echo 'unclosed", "ask"),
    ],
)
def test_an_allow_rule_skips_the_confirmation_only_for_what_it_names(command: str, kind: str) -> None:
    assert shell(command, ("allow", "shell(pytest:*)")) == kind


@pytest.mark.parametrize("command", ["rm -rf build", "ls && rm -rf build", "ls; rm x", "\\rm x", "'rm' x", "ls\nrm x"])
def test_a_deny_rule_matches_any_part_of_a_command(command: str) -> None:
    decision = decide("shell", {"command": command}, ("deny", "shell(rm:*)"), ("allow", "shell(ls:*)"), yes=True)
    assert decision.kind == "deny"
    assert decision.by == "rule"
    assert "shell(rm:*)" in decision.reason and "(test)" in decision.reason


def test_deny_wins_over_allow_and_yes() -> None:
    assert shell("git push", ("allow", "shell(git:*)"), ("deny", "shell(git push:*)"), yes=True) == "deny"


def test_an_ask_rule_asks_even_with_yes() -> None:
    decision = decide("shell", {"command": "git push"}, ("ask", "shell(git push:*)"), yes=True)
    assert decision.kind == "ask"
    assert decision.rule is not None and str(decision.rule) == "shell(git push:*)"


def test_an_allow_rule_never_raises_the_level() -> None:
    decision = decide("write_file", {"path": "a.py", "content": ""}, ("allow", "write_file"), level=1)
    assert decision.kind == "deny"
    assert decision.by == "level"
    assert decision.allow_with == "--level 2"


def test_file_rules_match_paths() -> None:
    docs: tuple[Action, str] = ("allow", "write_file(docs/**)")
    assert decide("write_file", {"path": "docs/a/b.md", "content": ""}, docs, level=2).kind == "allow"
    assert decide("write_file", {"path": "src/a.py", "content": ""}, docs, level=2).kind == "ask"
    env: tuple[Action, str] = ("deny", "read_file(*.env)")
    assert decide("read_file", {"path": "conf/prod.env"}, env).kind == "deny"
    assert decide("read_file", {"path": "conf/prod.py"}, env).kind == "allow"


def test_domain_rules_match_hosts_and_subdomains() -> None:
    rule: tuple[Action, str] = ("deny", "web_fetch(domain:example.com)")
    assert decide("web_fetch", {"url": "https://docs.example.com/x"}, rule).kind == "deny"
    assert decide("web_fetch", {"url": "https://example.org/"}, rule).kind == "allow"
    assert decide("web_fetch", {"url": "https://notexample.com/"}, rule).kind == "allow"


def test_a_whole_tool_denied_is_not_offered() -> None:
    policy = Policy(level=3, mode="code", rules=(Rule.parse("web_fetch", "deny", "test"),))
    assert not policy.offers(TOOLS["web_fetch"])
    assert policy.offers(TOOLS["read_file"])


@pytest.mark.parametrize("text", ["", "shell(", "shell()", "two words", "shell(x)(y)x"])
def test_a_malformed_rule_is_a_value_error_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"rule|specifier"):
        Rule.parse(text, "allow", "test")


@pytest.mark.parametrize(
    ("domain", "said"),
    [
        ("", "a domain is a host name"),
        ("https://pypi.org/simple", "write only the host"),
        ("*.pypi.org", "already covers its subdomains"),
        ("pypi.org:443", "covers every port"),
        ("py pi.org", "a domain is a host name"),
        ("-pypi.org", "a domain is a host name"),
    ],
)
def test_a_domain_rule_that_names_no_host_says_what_to_write(domain: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        Rule.parse(f"web_fetch(domain:{domain})", "allow", "test")


@pytest.mark.parametrize("domain", ["pypi.org", "localhost", "127.0.0.1", "::1", "xn--bcher-kva.example", "a_b.local."])
def test_a_domain_rule_may_name_a_host_or_an_address(domain: str) -> None:
    assert Rule.parse(f"web_fetch(domain:{domain})", "allow", "test").specifier == f"domain:{domain}"


def test_a_malformed_domain_rule_in_config_is_exit_2_naming_it(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text(
        '[permissions]\ndeny = ["web_fetch(domain:http://x.test/)"]\n'
    )
    done = chrysalis("config", "show", cwd=workspace)
    assert_clean_error(done, 2, "config.toml:1", "web_fetch(domain:http://x.test/)", "write only the host")


def test_command_parts() -> None:
    assert command_parts("a -x && b | c; d & e\nf") == ["a -x", "b", "c", "d", "e", "f"]
    assert command_parts("echo 'a;b'") == ["echo a;b"]
    assert command_parts('echo "open') is None


def test_a_denial_is_told_from_a_protected_test_by_its_cause_not_its_words() -> None:
    rule: tuple[Action, str] = ("deny", "write_file(protected_mode.py)")
    decision = decide("write_file", {"path": "protected_mode.py", "content": ""}, rule, level=2)
    assert decision.by == "rule"  # counted as a denial; once "protected" in the message made it a red flag
