"""Every tool call of a run goes through here: validate, guard, decide, approve, checkpoint, run, report.

This is the single choke point between the model and the world (STYLE rule 4: policy wraps the
tools, it is not an ``if`` inside them). It turns our ``ToolSpec``s into pydantic-ai tools whose
function is ``GatedTools.call``; pydantic-ai only ever sees the JSON schema and the result dict.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chrysalis.agent.durability import Durability, interrupted
from chrysalis.agent.guards import RunGuards, edit_hint
from chrysalis.agent.judge import JUDGED_TOOLS, SecurityJudge
from chrysalis.config import Settings
from chrysalis.errors import PolicyDenied, UsageError
from chrysalis.events import ApprovalRequest, Event, JudgeVerdict, RedFlag, ToolCall, ToolResultEvent
from chrysalis.redact import current as current_redactor
from chrysalis.stores.checkpoints import CheckpointStore
from chrysalis.tools.base import ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.policy import Decision, Policy
from chrysalis.tools.run_tests import code_under_test
from chrysalis.tools.sandbox import SandboxOptions

if TYPE_CHECKING:
    from pydantic_ai import RunContext, Tool

__all__ = ["MAX_DENIALS", "Approver", "GatedTools"]

Approver = Callable[[str, dict[str, Any], str], Awaitable[bool]]
"""Asks the user: (tool, args, reason) -> approved?"""

CommandSnapshot = Callable[[str], AbstractContextManager[None]]
"""Given the tool's name, snapshots the workspace around a command (``CheckpointStore.around_command``)."""

MAX_DENIALS = 2
"""A second refused call ends a one-shot run with exit 3: the task cannot go on at this level/mode."""
_THREADED_EFFECTS = frozenset({"shell", "network"})
_SNAPSHOT_TOOLS = frozenset({"git_commit"})
"""Tools besides commands that may change any file (a commit runs the project's hooks), snapshotted around."""
_INLINE_SOURCE_CHARS = 3000


class GatedTools:
    """The tools of one run, each call passing the guards and the security policy."""

    def __init__(
        self,
        specs: Mapping[str, ToolSpec],
        *,
        run_id: str,
        policy: Policy,
        context: ToolContext,
        emit: Callable[[Event], None],
        approver: Approver | None,
        guards: RunGuards,
        command_snapshot: CommandSnapshot | None = None,
        judge: SecurityJudge | None = None,
        durability: Durability | None = None,
    ) -> None:
        self.specs = dict(specs)
        self.run_id = run_id
        self.policy = policy
        self.context = context
        self.emit = emit
        self.approver = approver
        self.guards = guards
        self.command_snapshot = command_snapshot
        """Wraps each command that may change files, so undo covers it; None: no snapshots (tests)."""
        self.judge = judge
        """Labels each command safe or unsafe before it runs (``--judge``); None: no judge."""
        self.durability = durability
        """Records each call's effect so a resumed run neither loses nor repeats it; None: not durable."""
        self.denials: list[str] = []
        self._decisions: dict[str, str] = {}
        """Each call's gate decision by call id, for its ``tool_result`` event (``allow``, ``approved``, ...)."""
        self.step = 0
        """The model request the current calls answer (set by the loop), reported in ``ToolCall`` events."""

    @classmethod
    def for_run(
        cls,
        settings: Settings,
        tools: Mapping[str, ToolSpec],
        *,
        run_id: str,
        checkpoints: CheckpointStore,
        emit: Callable[[Event], None],
        approver: Approver | None,
        guards: RunGuards,
        judge: SecurityJudge | None = None,
        durability: Durability | None = None,
        policy: Policy | None = None,
    ) -> GatedTools:
        """The gated tools of one run: the run's policy, a checkpoint before every write.

        ``policy`` is the run's, built once (``Policy.from_settings(settings)`` when None). A tool the
        mode can never allow is not offered (small models try whatever they are shown); one above
        the run's level is, so that a call says which ``--level`` would allow it.
        """
        s = settings

        def before_write(path: Any) -> None:
            try:
                checkpoints.snapshot(run_id, s.workspace, path)
            except UsageError as exc:  # too large to checkpoint: refuse the write, the model can choose otherwise
                raise ToolError(f"Not written: {exc}") from exc

        policy = policy or Policy.from_settings(s)
        context = ToolContext(
            workspace=s.workspace,
            before_write=before_write,
            writable=policy.commands_writable,
            sandbox_options=SandboxOptions.from_settings(s),
            test_command=s.test_command,
        )
        offered = {name: spec for name, spec in tools.items() if policy.offers(spec)}

        def command_snapshot(kind: str) -> AbstractContextManager[None]:
            return checkpoints.around_command(run_id, s.workspace, kind)

        return cls(
            offered,
            run_id=run_id,
            policy=policy,
            context=context,
            emit=emit,
            approver=approver,
            guards=guards,
            command_snapshot=command_snapshot,
            judge=judge,
            durability=durability,
        )

    def pydantic_tools(self) -> list[Tool[Any]]:
        """One pydantic-ai tool per spec, all routed through ``call``.

        A durable run's calls run one at a time: its records are replayed in order, so the order must not vary.
        """
        from pydantic_ai import Tool

        sequential = self.durability is not None

        tools: list[Tool[Any]] = []
        for spec in self.specs.values():

            async def function(ctx: RunContext[Any], _name: str = spec.name, **kwargs: Any) -> dict[str, Any]:
                return await self.call(_name, kwargs, ctx.tool_call_id or "")

            tools.append(
                Tool.from_schema(
                    function, spec.name, spec.description, spec.json_schema(), takes_ctx=True, sequential=sequential
                )
            )
        return tools

    async def call(self, name: str, raw_args: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Run one call through every gate and report it; returns what the model sees."""
        self.emit(ToolCall(run_id=self.run_id, step=self.step, call_id=call_id, tool=name, args=raw_args))
        started = time.perf_counter()
        result = await self._gated_result(name, raw_args, call_id)
        redactor = current_redactor()  # once, here: the model, the event and the traces all get the redacted result
        error = None if result.error is None else redactor.text(result.error)
        result = ToolResult(ok=result.ok, result=redactor.value(result.result), error=error)
        duration = (time.perf_counter() - started) * 1000
        self.emit(
            ToolResultEvent(
                run_id=self.run_id,
                call_id=call_id,
                tool=name,
                ok=result.ok,
                result=result.result,
                error=result.error,
                duration_ms=round(duration, 2),
                decision=self._decisions.pop(call_id, "refused"),
            )
        )
        if len(self.denials) >= MAX_DENIALS:
            raise PolicyDenied(self.denials[-1])
        return result.for_model()

    async def _gated_result(self, name: str, raw_args: dict[str, Any], call_id: str) -> ToolResult:
        spec = self.specs.get(name)
        if spec is None:
            return ToolResult.failure(f"Unknown tool {name!r}. Available tools: {', '.join(self.specs)}.")
        try:
            args = spec.args.model_validate(raw_args)
        except ValueError:
            return spec(raw_args, self.context)  # ToolSpec turns the validation error into a failure result
        repeat = self.guards.repeated_call(name, raw_args)
        if repeat:
            self.emit(RedFlag(run_id=self.run_id, kind="repeated_call", detail=f"{name} {raw_args}"))
            return ToolResult.failure(repeat)
        refusal = await self._refusal(spec, args, raw_args, call_id)
        if refusal:
            return ToolResult.failure(refusal)
        self._decisions.setdefault(call_id, "allow")
        if self.durability is None:
            result = await self._run(spec, args)
        else:
            result = await self.durability.tool(spec, args, lambda: self._run(spec, args))
            if result == interrupted(name):
                self.guards.forget_call(name, raw_args)
        on_real_workspace = spec.effect == "shell" and spec.name != "run_tests" and self.context.writable
        self.guards.record_result(spec.effect, result.ok, on_real_workspace=on_real_workspace)
        if not result.ok and result.error:
            return ToolResult.failure(edit_hint(name, result.error))
        return result

    async def _refusal(self, spec: ToolSpec, args: Any, raw_args: dict[str, Any], call_id: str) -> str | None:
        decision = self.policy.decide(spec, args)
        if decision.kind != "deny" and self.judge is not None and spec.name in JUDGED_TOOLS:
            decision = await self._judged(decision, spec, raw_args, call_id)
        if decision.kind == "allow":
            return None
        if decision.kind == "ask":
            approved = self.approver is not None and await self.approver(spec.name, raw_args, decision.reason)
            self.emit(
                ApprovalRequest(
                    run_id=self.run_id,
                    call_id=call_id,
                    tool=spec.name,
                    args=raw_args,
                    reason=decision.reason,
                    approved=approved,
                )
            )
            self._decisions[call_id] = "approved" if approved else "declined"
            if approved:
                return None
            how = "the user declined it" if self.approver else f"no one can approve it here{_rerun_hint(decision)}"
            reason = f"{decision.reason} It was not run: {how}."
        else:
            self._decisions[call_id] = "denied"
            reason = f"Refused by policy: {decision.reason}"
        if decision.by == "protected_test":
            self.emit(RedFlag(run_id=self.run_id, kind="protected_file", detail=reason))
            self.guards.red_flags += 1
            reason += self._fix_here_hint(spec, args)
        else:
            self.denials.append(reason)
        return reason

    async def _judged(self, decision: Decision, spec: ToolSpec, raw_args: dict[str, Any], call_id: str) -> Decision:
        """The policy's decision after the security judge's verdict: an unsafe command is always asked about."""
        assert self.judge is not None
        verdict = await self.judge.review(spec.name, raw_args)
        self.emit(
            JudgeVerdict(
                run_id=self.run_id,
                call_id=call_id,
                tool=spec.name,
                model=verdict.model,
                safe=verdict.safe,
                reason=verdict.reason,
                duration_ms=verdict.duration_ms,
            )
        )
        said = f"The security judge ({verdict.model}) says {verdict.label}: {verdict.reason}"
        if verdict.safe:
            return replace(decision, reason=f"{decision.reason} {said}") if decision.kind == "ask" else decision
        return Decision("ask", f"{said} It needs your approval even where the policy would allow it.", by="judge")

    def _fix_here_hint(self, spec: ToolSpec, args: Any) -> str:
        """Point a model that tried to edit a test at the code the test imports, with that code inline.

        Small models fixate on the assertion they can see; showing them the code under test right
        in the refusal is what turns them towards the real fix.
        """
        sources = [src for test in spec.write_targets(args) for src in code_under_test(self.context.workspace, test)]
        if not sources:
            return ""
        hint = f" The test imports {', '.join(sources)}: the bug is there. Fix it with edit_file."
        first = self.context.workspace / sources[0]
        text = first.read_text(encoding="utf-8", errors="replace")
        if len(text) <= _INLINE_SOURCE_CHARS:
            hint += f"\nHere is {sources[0]}:\n{text}"
        return hint

    async def _run(self, spec: ToolSpec, args: Any) -> ToolResult:
        if spec.arun is not None:
            return await spec.arun_validated(args, self.context)
        try:
            if self.command_snapshot is not None and self._may_change_files(spec):
                return await asyncio.to_thread(self._run_between_snapshots, spec, args)
            if spec.effect in _THREADED_EFFECTS:
                return await asyncio.to_thread(spec.run_validated, args, self.context)
        except asyncio.CancelledError:  # the run is over: its command must not run on to its own timeout
            self.context.commands.stop_all()
            raise
        return spec.run_validated(args, self.context)

    def _may_change_files(self, spec: ToolSpec) -> bool:
        """A commit, or a command that sees the workspace writable (not the read-only sandbox)."""
        return spec.name in _SNAPSHOT_TOOLS or (spec.effect == "shell" and self.context.writable)

    def _run_between_snapshots(self, spec: ToolSpec, args: Any) -> ToolResult:
        """Run a command between two snapshots of the workspace (in a worker thread): no snapshot, no command."""
        assert self.command_snapshot is not None
        with ExitStack() as stack:
            try:
                stack.enter_context(self.command_snapshot(spec.name))
            except UsageError as exc:  # no git, a workspace too big: the command could not be undone
                return ToolResult.failure(f"Not run: {exc}")
            return spec.run_validated(args, self.context)


def _rerun_hint(decision: Decision) -> str:
    """How to let a call that needs approval run unattended: --yes, unless a rule insists on asking."""
    if decision.by == "rule" and decision.rule is not None:
        return f" (the rule ask {decision.rule} asks even with --yes; remove it from {decision.rule.source})"
    if decision.by == "judge":
        return " (a command the judge calls unsafe is run only with a person's approval; run it yourself if it is fine)"
    return " (rerun with --yes)"
