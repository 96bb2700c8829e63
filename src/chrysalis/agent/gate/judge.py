"""The security judge (``--judge``, ``chrysalis.agent.judge``) may turn a command's decision into a question."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.agent.judge import JUDGED_TOOLS, SecurityJudge
from chrysalis.events import Event, JudgeVerdict
from chrysalis.tools.base import ToolResult
from chrysalis.tools.policy import Decision

__all__ = ["JudgeTools"]


@dataclass(kw_only=True)
class JudgeTools(Wrapper):
    """Has each command the policy lets through (or asks about) judged; an unsafe one is always asked about."""

    judge: SecurityJudge | None
    """None: no judge (the default)."""
    run_id: str
    emit: Callable[[Event], None]

    async def call(self, call: Call) -> ToolResult:
        """Tighten the call's decision by the judge's verdict (a ``judge`` event), then hand it on."""
        if self.judge is not None and call.spec.name in JUDGED_TOOLS:
            call.decision = await self._judged(self.judge, call)
        return await self.inner.call(call)

    async def _judged(self, judge: SecurityJudge, call: Call) -> Decision:
        verdict = await judge.review(call.spec.name, call.raw)
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
