"""The one object that makes every security decision of a run: ``Policy``.

Security levels (seed 000), each including the ones below it:

    0  read-only      read files, list, search, git status/diff/log, system stats
    1  sandboxed read + the network (web_fetch, web_search) and shell commands in a read-only sandbox
    2  write          + write/edit/patch files and commit, each with confirmation (unless --yes)
    3  shell          + shell commands on the real workspace, with confirmation (unless --yes);
                        file writes need no confirmation here

Modes narrow what the level allows: ``ask`` never writes or runs commands, ``architect`` writes
only plan and doc files, ``code`` does everything the level allows, ``semantic`` reads and uses
memory. Rules from config (``tools/rules.py``: ``allow``/``ask``/``deny`` lists in ``[permissions]``)
refine that: deny first, an allow rule skips a confirmation but never raises the level. A denial
says which level, mode or rule decided and what would allow the call, so both the model and the
user know how to go on.

The questions it answers, and who asks:

    offers(tool) / lists(tool)   which tools the model sees (the gate) / an MCP client sees (``serve --mcp``)
    decide(tool, args)           each tool call (the gate, ``chrysalis.agent.gate``)
    judged(tool)                 whether ``--judge`` reviews a call the policy does not deny (the gate)
    may_write(paths)             a patch that no tool call wrote (``chrysalis fix``, the ``repair`` tool)
    commands_writable            whether the agent's commands may write the workspace (``ToolContext.writable``)
    server_access(server)        whether a stdio MCP server's sandbox may write the workspace, use the network
    hosts                        the hosts web tools reach unasked, or at non-public addresses (``ToolContext.hosts``)
    remember(decision)           what a yes approved beyond its call: a new domain, for the session (the gate)
    check_writable               whether the final test check may (``chrysalis.agent.verify``)
    narrowed(level=, mode=)      a sub-agent's, an HTTP request's or an editor's policy: only ever narrower
    modes_within()               the modes ``narrowed`` accepts (what an editor may switch to over ACP)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from chrysalis.config import LEVEL_NAMES, MODES, Settings
from chrysalis.config.narrowing import MODE_EFFECTS, level_narrows, mode_narrows, modes_within
from chrysalis.errors import UsageError
from chrysalis.tools.base import Effect, ToolArgs, ToolError, ToolResult, ToolSpec
from chrysalis.tools.domains import ApprovedDomains, domain_question, host_rules, new_domain, server_hosts
from chrysalis.tools.egress import HostRules
from chrysalis.tools.mcp_client import McpToolSpec
from chrysalis.tools.mcp_config import McpServerAccess, McpServerConfig
from chrysalis.tools.pathkinds import is_doc_path, is_test_path
from chrysalis.tools.protected_tests import asks_for_test_changes, protected_test_denial
from chrysalis.tools.rules import Action, Rule

__all__ = [
    "FILE_TOOLS",
    "LEVEL_NAMES",
    "Decision",
    "NarrowingRefused",
    "Policy",
    "Reason",
    "SandboxMode",
    "is_doc_path",
    "is_test_path",
    "mode_allows",
    "mode_narrows",
]


_JUDGED_EFFECTS: frozenset[Effect] = frozenset({"write", "shell", "network"})
FILE_TOOLS = ("write_file", "edit_file", "apply_patch")
"""The tools that write files: their rules (and ``*``'s) also judge a patch written without them (``may_write``)."""


Reason = Literal["level", "mode", "rule", "protected_test", "confirmation", "judge", "allowed"]
"""What decided: the level, the mode, a config rule, the protected-tests guard, the need to confirm, the
security judge (``chrysalis.agent.judge``, which may only turn a decision into ``ask``), or nothing."""


@dataclass(frozen=True)
class Decision:
    """The policy's answer for one call; ``reason`` is shown to the model and the user."""

    kind: Literal["allow", "ask", "deny"]
    reason: str = ""
    by: Reason = "allowed"
    """What made the decision, so callers never parse ``reason`` (a protected test is not a denial to count)."""
    rule: Rule | None = None
    """The config rule that decided, when ``by == "rule"`` (or an allow rule that skipped the confirmation)."""
    allow_with: str | None = None
    """What would allow the call: ``--level 3``, ``--mode code``, ``--yes``; None when nothing would."""
    domain: str | None = None
    """The web tools' domain, new to the session, that a yes approves for the rest of it (``Policy.remember``)."""

    @property
    def allowed(self) -> bool:
        """True when the call may run now, without asking."""
        return self.kind == "allow"


@dataclass(frozen=True)
class Policy:
    """Every decision about what the agent may do: level x mode x rules x trust -> allow / ask / deny.

    The tools offered to the model (``offers``) and listed to an MCP client (``lists``), each call
    (``decide``), each patch written outside a tool call (``may_write``), whether commands and the
    final test check may write the workspace (``commands_writable``, ``check_writable``) and a
    sub-agent's policy (``narrowed``) all ask this object, built once per run.
    Trust is applied before it is built: an untrusted folder's config may only narrow the user's settings,
    by the rule ``narrowed`` keeps too (``chrysalis.config.narrowing``), so a Policy only ever sees what counts.
    """

    level: int
    mode: str
    auto_approve: bool = False
    protect_tests: bool = False
    rules: tuple[Rule, ...] = ()
    domains: ApprovedDomains = field(default_factory=ApprovedDomains, compare=False)
    """The domains the person approved in the session (``AgentSession.domains``): they outlive this run's policy."""

    @classmethod
    def from_settings(cls, settings: Settings, domains: ApprovedDomains | None = None) -> Policy:
        """The policy of a run with ``settings``: their security concern; ``domains``: the session's approvals."""
        security = settings.security
        rules = tuple(Rule.parse(text, cast(Action, action), source) for action, text, source in security.permissions)
        return cls(
            level=security.level,
            mode=security.mode,
            auto_approve=security.yes,
            protect_tests=security.protect_tests,
            rules=rules,
            domains=ApprovedDomains() if domains is None else domains,
        )

    def offers(self, tool: ToolSpec) -> bool:
        """Whether to show ``tool`` to the model: the mode can allow it at some level, and no rule denies it whole.

        Tools above the run's level are offered, so a call is refused naming the level that allows it.
        """
        whole_denial = any(
            r.action == "deny" and r.specifier is None and r.tool in ("*", tool.name) for r in self.rules
        )
        return mode_allows(tool, self.mode) and not whole_denial

    def lists(self, tool: ToolSpec) -> bool:
        """Whether to list ``tool`` where a refusal teaches nobody (``serve --mcp``): offered, and within the level."""
        return self.offers(tool) and tool.level <= self.level

    def decide(self, tool: ToolSpec, args: Any) -> Decision:
        """Allow, ask or deny one call of ``tool`` with validated ``args``.

        Order: the level, then the mode, then deny rules, then protected tests, then ask rules,
        then allow rules (which skip the confirmation, never raise the level), then the
        confirmation the level asks for (writes at 2, commands at 3) unless ``--yes``, then a web
        domain new to the session (below level 3, unless ``--yes``; ``tools/domains.py``). A tool whose
        writes are each judged when made (``ToolSpec.writes_through_policy``: ``repair``) needs no
        confirmation of its own, and a deny rule of a whole file tool refuses it.
        """
        return self._decide(tool, args, (tool.name,), "this call")

    def judged(self, tool: ToolSpec) -> bool:
        """Whether the security judge (``--judge``) reviews a call of ``tool`` that ``decide`` does not deny.

        Every call that acts on the world: a write (files, a commit), a command, a network request
        (the exfiltration the judge exists for) and any MCP tool, whatever effect its level gives it
        (its server does what it likes). Reads and memory stay in the workspace and the stores.
        """
        return tool.effect in _JUDGED_EFFECTS or isinstance(tool, McpToolSpec)

    def may_write(self, paths: str | Sequence[str]) -> Decision:
        """Whether a patch may write ``paths`` (workspace-relative): what ``decide`` answers for ``write_file``.

        The reasons name the ``'patch'``: "'patch' changes the workspace (write); it needs your approval."

        For writes that no tool call makes (``chrysalis fix``, the ``repair`` tool): the level, the
        mode (``architect`` writes only docs), protected tests, and the rules of every file tool
        (``FILE_TOOLS`` and ``*``): ``deny = ["edit_file(src/secret.py)"]`` forbids a patch of that file too.
        """
        targets = (paths,) if isinstance(paths, str) else tuple(paths)
        return self._decide(_PATCH, _PatchArgs(paths=targets), FILE_TOOLS, f"writing {', '.join(targets)}")

    def _decide(self, tool: ToolSpec, args: Any, rule_tools: tuple[str, ...], what: str) -> Decision:
        """``decide``, with the rules of any of ``rule_tools`` (or ``*``) applying; ``what`` a rule's denial forbids."""
        if tool.level > self.level:
            return Decision(
                "deny",
                f"{tool.name!r} needs security level {tool.level} ({LEVEL_NAMES[tool.level]}); this run has level "
                f"{self.level} ({LEVEL_NAMES[self.level]}). Rerun with --level {tool.level} to allow it.",
                by="level",
                allow_with=f"--level {tool.level}",
            )
        mode_denial = _mode_denial(tool, args, self.mode)
        if mode_denial:
            return Decision("deny", mode_denial[0], by="mode", allow_with=mode_denial[1])
        named = [replace(tool, name=name) for name in rule_tools] if rule_tools != (tool.name,) else [tool]
        matching = [rule for rule in self.rules if any(rule.matches(spec, args) for spec in named)]
        denied = next((r for r in matching if r.action == "deny"), None) or self._file_tools_denied(tool)
        if denied:
            return Decision("deny", f"the rule deny {denied} ({denied.source}) forbids {what}.", by="rule", rule=denied)
        test_denial = protected_test_denial(tool, args, self.protect_tests)
        if test_denial:
            return Decision("deny", test_denial, by="protected_test")
        asked = next((r for r in matching if r.action == "ask"), None)
        if asked:
            return Decision(
                "ask",
                f"the rule ask {asked} ({asked.source}) wants your approval for {tool.name!r}.",
                by="rule",
                rule=asked,
            )
        allowed = next((r for r in matching if r.action == "allow"), None)
        if self._needs_confirmation(tool) and not self.auto_approve and allowed is None:
            return Decision(
                "ask",
                f"{tool.name!r} changes the workspace ({tool.effect}); it needs your approval.",
                by="confirmation",
                allow_with="--yes",
            )
        asked_domain = None if allowed else self._new_domain(tool, args)
        return asked_domain or Decision("allow", by="rule" if allowed else "allowed", rule=allowed)

    def _new_domain(self, tool: ToolSpec, args: Any) -> Decision | None:
        """The question about the domain a web call reaches, when the session has not approved it; None: none."""
        url = tool.reaches(args)
        host = None if url is None else new_domain(url, self.hosts)
        if url is None or host is None:
            return None
        reason = domain_question(tool.name, host, url)
        return Decision("ask", reason, by="confirmation", allow_with="--yes", domain=host)

    def remember(self, decision: Decision) -> None:
        """Keep what the person's yes to ``decision`` approved beyond its call: a new domain, for the session."""
        if decision.domain is not None:
            self.domains.approve(decision.domain)

    def _needs_confirmation(self, tool: ToolSpec) -> bool:
        if tool.writes_through_policy:  # each write it makes is judged (and asked about) when it is made
            return False
        return (tool.effect == "write" and self.level == 2) or (tool.effect == "shell" and self.level == 3)

    def _file_tools_denied(self, tool: ToolSpec) -> Rule | None:
        """The rule denying a file tool whole, for a tool whose writes are judged as theirs (none could be made)."""
        if not tool.writes_through_policy:
            return None
        return next(
            (r for r in self.rules if r.action == "deny" and r.specifier is None and r.tool in FILE_TOOLS), None
        )

    @property
    def command_sandbox(self) -> SandboxMode:
        """How the agent's commands are confined: the workspace read-only below level 3, writable at 3."""
        return "workspace-write" if self.level >= 3 else "read-only"

    @property
    def check_sandbox(self) -> SandboxMode:
        """How the final test check runs: writable only where the user already lets commands write unasked."""
        return "workspace-write" if self.level >= 3 and self.auto_approve else "read-only"

    @property
    def commands_writable(self) -> bool:
        """The agent's commands see the workspace writable (``ToolContext.writable``): level 3."""
        return self.command_sandbox == "workspace-write"

    def server_access(self, server: McpServerConfig, *, trusted: bool) -> McpServerAccess:
        """What a stdio MCP server's sandbox allows: the workspace writable, the network (``"network": true``).

        Writable at levels 2-3 when a tool of the server can be called at a writing level here (2 up to the run's
        level) and the mode writes: unlike a command (writable at 3 only), the server is one process serving the
        run, and each call of its level-2 tools is confirmed at level 2 and runs between two snapshots (undo).
        A server whose tools are all level 0-1 sees the workspace read-only, as its entry declares.

        Raises:
            UsageError: the entry asks for the network and the workspace is not trusted (the message says how).
        """
        if server.network and not trusted:
            raise UsageError(
                f'MCP server {server.name!r} ({server.source}) asks for "network": true, which only a trusted '
                "folder honours. Run `chrysalis trust` in the workspace if you trust it, or remove the key."
            )
        callable_writing = any(2 <= level <= self.level for level in server.levels)
        writing = callable_writing and self.mode == "code"  # architect writes named doc files only, never via MCP
        return McpServerAccess(writable=writing, network=server.network, hosts=server_hosts(self.rules, server.url))

    @property
    def check_writable(self) -> bool:
        """The final test check sees the workspace writable: level 3 with ``--yes``."""
        return self.check_sandbox == "workspace-write"

    @property
    def hosts(self) -> HostRules:
        """The hosts the web tools may reach at any address, unasked, and never (``ToolContext.hosts``).

        Read from the ``domain:`` rules of ``web_fetch`` and ``*``: an allow rule ``web_fetch(domain:127.0.0.1)``
        lets both web tools reach that host at a loopback or private address (with ``--yes`` or without, nothing
        else does); deny rules refuse the host also behind a redirect, and ask rules refuse a redirect there
        (the URL asked for was already asked about by ``decide``). Below level 3 without ``--yes`` it carries the
        session's approved domains, and a redirect elsewhere is refused. ``chrysalis.tools.egress`` applies them.
        """
        return host_rules(self.rules, self.domains if self.level < 3 and not self.auto_approve else None)

    def for_task(self, task: str, settings: Settings, *, sub_agent: bool) -> Policy:
        """This policy for one top-level run of ``task``: tests stay protected unless the task asks to change them.

        ``protect_tests`` keeps a "make the tests pass" run from weakening the tests. A user who asks
        for tests to be written, updated or renamed ("add median() and tests for it", "rename
        calc_total everywhere, tests included") means the agent to edit them; refused, the run could
        not do what it was asked. So, when the setting is at its default, such a task lifts it for its
        run. A ``protect_tests = true`` the user set stays, and a sub-agent's task never lifts it.
        """
        default = settings.sources.get("protect_tests") == "default"
        if self.protect_tests and default and not sub_agent and asks_for_test_changes(task):
            return replace(self, protect_tests=False)
        return self

    def narrowed(self, *, level: int | None = None, mode: str | None = None, asker: str = "A sub-agent") -> Policy:
        """A narrower policy: this one with a level no higher and a mode whose effects this mode has.

        For a sub-agent, an HTTP request to ``serve --http`` and an editor's ``session/set_mode``; ``asker``
        names who asked, in the refusal. ``None`` keeps this policy's level or mode; rules, ``--yes`` and
        protected tests stay as they are.

        Raises:
            NarrowingRefused: the level or mode would allow more than this policy does (the message says what
                it allows; ``field`` is ``"level"`` or ``"mode"``).
        """
        level = self.level if level is None else level
        if not level_narrows(level, self.level):
            raise NarrowingRefused(
                "level", f"{asker} may not have level {level}: this run has level {self.level}, its most."
            )
        mode = self.mode if mode is None else mode
        if mode not in MODES:
            raise NarrowingRefused("mode", f"Unknown mode {mode!r}; modes: {', '.join(MODES)}.")
        if mode not in self.modes_within():
            raise NarrowingRefused(
                "mode", f"{asker} may not use mode {mode!r}: it allows more than this run's {self.mode!r}."
            )
        return replace(self, level=level, mode=mode)

    def modes_within(self) -> tuple[str, ...]:
        """The modes ``narrowed`` accepts, in ``MODES`` order: those that allow nothing this run's mode does not."""
        return modes_within(self.mode)


class NarrowingRefused(ToolError):
    """A sub-agent asked for more than its parent's policy allows; the message names what the parent allows."""

    def __init__(self, field: Literal["level", "mode"], message: str) -> None:
        super().__init__(message)
        self.field = field
        """What asked for too much: the level or the mode."""


class _PatchArgs(ToolArgs):
    paths: tuple[str, ...]


def _not_a_tool(_args: Any, _ctx: Any) -> ToolResult:
    return ToolResult.failure("a patch is written by its caller, never run as a tool")


_PATCH = ToolSpec(
    "patch",
    "A patch written outside a tool call (chrysalis fix, the repair tool): judged as write_file writing its paths.",
    _PatchArgs,
    "write",
    2,
    _not_a_tool,
    write_targets=lambda args: list(args.paths),
)


SandboxMode = Literal["read-only", "workspace-write"]


def mode_allows(tool: ToolSpec, mode: str) -> bool:
    """Whether ``mode`` can ever allow ``tool`` (at some level): tools it cannot are not worth offering."""
    return tool.effect in MODE_EFFECTS.get(mode, frozenset())


def _mode_denial(tool: ToolSpec, args: Any, mode: str) -> tuple[str, str] | None:
    """Why ``mode`` refuses the call, and the flag that would allow it."""
    if not mode_allows(tool, mode):
        modes = [m for m, effects in MODE_EFFECTS.items() if tool.effect in effects]
        return (
            f"{tool.name!r} ({tool.effect}) is not allowed in {mode!r} mode. "
            f"Switch with --mode {modes[-1]} (or /mode {modes[-1]}) to allow it.",
            f"--mode {modes[-1]}",
        )
    if mode == "architect" and tool.effect == "write":
        not_docs = [p for p in tool.write_targets(args) if not is_doc_path(p)]
        if not_docs or not tool.write_targets(args):
            return (
                f"In 'architect' mode only plan and doc files (*.md, *.rst, *.txt, docs/) may be written, "
                f"not {', '.join(not_docs) or tool.name!r}. Switch with --mode code to change code.",
                "--mode code",
            )
    return None
