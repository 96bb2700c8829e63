"""The scaffold's guards around each call (``chrysalis.agent.guards``): repeats, red flags, what the run changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.agent.guards import RunGuards, edit_hint
from chrysalis.events import Event, RedFlag
from chrysalis.tools.base import ToolContext, ToolResult

__all__ = ["GuardTools"]


@dataclass(kw_only=True)
class GuardTools(Wrapper):
    """Stops a call that repeats one whose result cannot have changed; counts red flags, writes and commands."""

    guards: RunGuards
    context: ToolContext
    run_id: str
    emit: Callable[[Event], None]

    async def call(self, call: Call) -> ToolResult:
        """Refuse a repeat (a red flag), else hand the call on and record what it did."""
        repeat = self.guards.repeated_call(call.spec.name, call.raw)
        if repeat:
            self.emit(RedFlag(run_id=self.run_id, kind="repeated_call", detail=f"{call.spec.name} {call.raw}"))
            return ToolResult.failure(repeat)
        result = await self.inner.call(call)
        self.guards.stopped_from_acting |= call.spec.effect in ("write", "shell") and not call.passed
        if call.red_flag is not None:
            self.emit(RedFlag(run_id=self.run_id, kind="protected_file", detail=call.red_flag))
            self.guards.red_flags += 1
        if not call.passed:
            return result
        if call.interrupted:  # no result: making the call again is no repeat
            self.guards.forget_call(call.spec.name, call.raw)
        spec = call.spec
        on_real_workspace = spec.effect == "shell" and spec.name != "run_tests" and self.context.writable
        self.guards.record_result(spec.effect, result.ok, on_real_workspace=on_real_workspace)
        if not result.ok and result.error:
            return ToolResult.failure(edit_hint(spec.name, result.error))
        return result
