"""The assembly: ``GatedTools``, the chain of wrappers every tool call of a run goes through.

    report       tool_call / tool_result events, redaction, unknown tools and bad arguments, denials counted
    guards       repeated calls, red flags, what the run changed (for the final check)
    policy       the run's Policy: a denial is refused, saying what would allow the call
    judge        --judge: an unsafe write, command, network request or MCP call is asked about
    approval     a call the policy asks about runs only when approved
    durable      a durable run records each effect, so a resume neither loses nor repeats it
    checkpoint   commands and commits run between two workspace snapshots (undo)
    run          the tool itself, off the event loop when it may block

This is the single choke point between the model and the world (STYLE rule 4: policy wraps the
tools, it is not an ``if`` inside them). pydantic-ai only ever sees the JSON schema and the result dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.agent.durability import Durability
from chrysalis.agent.gate.approval import ApprovalTools, Approver, Asking
from chrysalis.agent.gate.checkpoint import CheckpointTools, CommandSnapshot
from chrysalis.agent.gate.durable import DurableTools
from chrysalis.agent.gate.guards import GuardTools
from chrysalis.agent.gate.judge import JudgeTools
from chrysalis.agent.gate.policy import PolicyTools
from chrysalis.agent.gate.report import ReportTools
from chrysalis.agent.gate.run import RunTools
from chrysalis.agent.guards import RunGuards
from chrysalis.agent.judge import SecurityJudge
from chrysalis.agent.limits import RunLimits
from chrysalis.config import Settings
from chrysalis.errors import UsageError
from chrysalis.events import Event
from chrysalis.stores.checkpoints import CheckpointStore
from chrysalis.tools.base import ToolContext, ToolError, ToolSpec
from chrysalis.tools.policy import Policy
from chrysalis.tools.sandbox import SandboxOptions

if TYPE_CHECKING:
    from pydantic_ai import RunContext, Tool

__all__ = ["GatedTools"]


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
        limits: RunLimits,
        command_snapshot: CommandSnapshot | None = None,
        judge: SecurityJudge | None = None,
        durability: Durability | None = None,
        step: Callable[[], int] | None = None,
    ) -> None:
        """``step`` reads the model request the current calls answer (for ``tool_call`` events); see ``step``.

        ``limits`` are the run's: its ``max_denials``-th refusal ends it, its guards count to ``max_red_flags``.
        """
        self.run_id = run_id
        self.changed_paths: Callable[[], tuple[Path, ...]] | None = None
        """The files this run has changed, from its checkpoints (``for_run`` sets it); None: not known."""
        self.durability = durability
        """Records each call's effect so a resumed run neither loses nor repeats it; None: not durable."""
        self._step = step or (lambda: 0)
        self._run = RunTools(context=context)
        self._checkpoint = CheckpointTools(inner=self._run, snapshot=command_snapshot, context=context)
        durable = DurableTools(inner=self._checkpoint, durability=durability)
        self._approval = ApprovalTools(inner=durable, asking=Asking(approver, run_id, emit), policy=policy)
        self._judge = JudgeTools(
            inner=self._approval, judge=judge, policy=policy, context=context, run_id=run_id, emit=emit
        )
        self._policy = PolicyTools(inner=self._judge, policy=policy, context=context)
        guards = RunGuards(max_red_flags=limits.max_red_flags)
        self._guards = GuardTools(inner=self._policy, guards=guards, context=context, run_id=run_id, emit=emit)
        self._report = ReportTools(
            inner=self._guards,
            specs=dict(specs),
            context=context,
            run_id=run_id,
            emit=emit,
            step=lambda: self.step,
            max_denials=limits.max_denials,
        )

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
        limits: RunLimits,
        judge: SecurityJudge | None = None,
        durability: Durability | None = None,
        policy: Policy | None = None,
        step: Callable[[], int] | None = None,
    ) -> GatedTools:
        """The gated tools of one run: the run's policy and limits, a checkpoint before every write.

        ``policy`` is the run's, built once (``Policy.from_settings(settings)`` when None). A tool the
        mode can never allow is not offered (small models try whatever they are shown); one above
        the run's level is, so that a call says which ``--level`` would allow it.
        """
        s = settings
        policy = policy or Policy.from_settings(s)

        def before_write(path: Any) -> None:
            try:
                checkpoints.snapshot(run_id, s.workspace, path)
            except UsageError as exc:  # too large to checkpoint: refuse the write, the model can choose otherwise
                raise ToolError(f"Not written: {exc}") from exc

        context = ToolContext(
            workspace=s.workspace,
            before_write=before_write,
            writable=policy.commands_writable,
            sandbox_options=SandboxOptions.from_settings(s),
            test_command=s.test_command,
            hosts=policy.hosts,
        )
        gated = cls(
            {name: spec for name, spec in tools.items() if policy.offers(spec)},
            run_id=run_id,
            policy=policy,
            context=context,
            emit=emit,
            approver=approver,
            limits=limits,
            command_snapshot=partial(checkpoints.around_command, run_id, s.workspace),  # called with the command's kind
            judge=judge,
            durability=durability,
            step=step,
        )
        gated.changed_paths = partial(checkpoints.changed, s.workspace, (run_id,))
        return gated

    async def call(self, name: str, raw_args: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Run one call through every gate and report it; returns what the model sees.

        Raises:
            PolicyDenied: this refusal is the run's ``limits.max_denials``-th.
        """
        return await self._report.call(name, raw_args, call_id)

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

            schema = spec.json_schema()
            tools.append(
                Tool.from_schema(function, spec.name, spec.description, schema, takes_ctx=True, sequential=sequential)
            )
        return tools

    # -- what the wrappers hold, read and set here (the loop, serve --mcp) --------------------------------

    @property
    def specs(self) -> dict[str, ToolSpec]:
        """The tools offered, by name; a call to any other is answered "Unknown tool"."""
        return self._report.specs

    @specs.setter
    def specs(self, specs: Mapping[str, ToolSpec]) -> None:
        self._report.specs = dict(specs)

    @property
    def policy(self) -> Policy:
        """The run's policy, which decides each call."""
        return self._policy.policy

    @policy.setter
    def policy(self, policy: Policy) -> None:
        self._policy.policy = policy
        self._judge.policy = policy
        self._approval.policy = policy

    @property
    def guards(self) -> RunGuards:
        """The run's guards (repeats, red flags, what changed), which the loop reads."""
        return self._guards.guards

    @guards.setter
    def guards(self, guards: RunGuards) -> None:
        self._guards.guards = guards

    @property
    def context(self) -> ToolContext:
        """What the tools may touch: the workspace, the checkpoint hook, whether commands may write it."""
        return self._run.context

    @context.setter
    def context(self, context: ToolContext) -> None:
        for layer in (self._run, self._checkpoint, self._policy, self._judge, self._guards, self._report):
            layer.context = context

    @property
    def command_snapshot(self) -> CommandSnapshot | None:
        """Wraps each command that may change files, so undo covers it; None: no snapshots (tests)."""
        return self._checkpoint.snapshot

    @command_snapshot.setter
    def command_snapshot(self, snapshot: CommandSnapshot | None) -> None:
        self._checkpoint.snapshot = snapshot

    @property
    def denials(self) -> list[str]:
        """The run's refusals so far (a server clears them between its clients' calls)."""
        return self._report.denials

    @property
    def approver(self) -> Approver | None:
        """Who answers a call that needs approval; None: nobody can here."""
        return self._approval.asking.approver

    @property
    def judge(self) -> SecurityJudge | None:
        """Labels each judged call safe or unsafe before it runs (``--judge``, ``Policy.judged``); None: no judge."""
        return self._judge.judge

    @property
    def step(self) -> int:
        """The model request the current calls answer, as read from ``step`` given at construction.

        Setting it (what the loop does before each request) replaces that reader with the value set.
        """
        return self._step()

    @step.setter
    def step(self, step: int) -> None:
        self._step = lambda: step
