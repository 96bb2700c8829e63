"""The security judge (``--judge``, ``chrysalis.agent.judge``) may turn a call's decision into a question."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.agent.judge import SecurityJudge
from chrysalis.events import Event, JudgeVerdict
from chrysalis.tools.base import ToolContext, ToolResult
from chrysalis.tools.policy import Decision, Policy

__all__ = ["JudgeTools"]


@dataclass(kw_only=True)
class JudgeTools(Wrapper):
    """Has the calls the policy lets through (or asks about) judged, where ``Policy.judged``; unsafe ones are asked."""

    judge: SecurityJudge | None
    """None: no judge (the default)."""
    policy: Policy
    """The run's, which says which calls are judged (the same the policy wrapper decides by)."""
    context: ToolContext
    """The run's workspace, where a write's diff is worked out for the judge to read."""
    run_id: str
    emit: Callable[[Event], None]

    async def call(self, call: Call) -> ToolResult:
        """Tighten the call's decision by the judge's verdict (a ``judge`` event), then hand it on."""
        if self.judge is not None and self.policy.judged(call.spec):
            call.decision = await self._judged(self.judge, call)
        return await self.inner.call(call)

    async def _judged(self, judge: SecurityJudge, call: Call) -> Decision:
        verdict = await judge.review(call.spec, call.raw, self.context)
        self.emit(
            JudgeVerdict(
                run_id=self.run_id,
                call_id=call.id,
                tool=call.spec.name,
                model=verdict.model,
                safe=verdict.safe,
                reason=verdict.reason,
                duration_ms=verdict.duration_ms,
            )
        )
        decision = call.decision
        said = f"The security judge ({verdict.model}) says {verdict.label}: {verdict.reason}"
        if verdict.safe:
            return replace(decision, reason=f"{decision.reason} {said}") if decision.kind == "ask" else decision
        return Decision("ask", f"{said} It needs your approval even where the policy would allow it.", by="judge")
