"""The outermost wrapper: every call is reported (``tool_call``, ``tool_result``), redacted, and its denials counted."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chrysalis.agent.gate.call import Call, Tools
from chrysalis.agent.limits import MAX_DENIALS
from chrysalis.errors import PolicyDenied
from chrysalis.events import Event, ToolCall, ToolResultEvent
from chrysalis.redact import current as current_redactor
from chrysalis.tools.base import ToolContext, ToolResult, ToolSpec

__all__ = ["MAX_DENIALS", "ReportTools"]
# MAX_DENIALS is RunLimits' default, importable here under its old name; the gate counts to the run's max_denials.


@dataclass(kw_only=True)
class ReportTools:
    """Turns the model's call (a name, raw arguments) into a ``Call`` for ``inner``, and reports how it went."""

    inner: Tools
    specs: dict[str, ToolSpec]
    context: ToolContext
    run_id: str
    emit: Callable[[Event], None]
    step: Callable[[], int]
    """The model request the calls answer, for ``tool_call`` events."""
    max_denials: int
    """The run's ``RunLimits.max_denials``: the refusal that ends the run."""
    denials: list[str] = field(default_factory=list[str])

    async def call(self, name: str, raw_args: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Run one call and report it; returns what the model sees. Raises ``PolicyDenied`` at ``max_denials``."""
        self.emit(ToolCall(run_id=self.run_id, step=self.step(), call_id=call_id, tool=name, args=raw_args))
        started = time.perf_counter()
        call, result = await self._result(name, raw_args, call_id)
        redactor = current_redactor()  # once, here: the model, the event and the traces all get the redacted result
        error = None if result.error is None else redactor.text(result.error)
        result = ToolResult(ok=result.ok, result=redactor.value(result.result), error=error)
        self.emit(
            ToolResultEvent(
                run_id=self.run_id,
                call_id=call_id,
                tool=name,
                ok=result.ok,
                result=result.result,
                error=result.error,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
                decision="refused" if call is None else call.outcome,
            )
        )
        if call is not None and call.denial is not None:
            self.denials.append(call.denial)
        if len(self.denials) >= self.max_denials:
            raise PolicyDenied(self.denials[-1])
        return result.for_model()

    async def _result(self, name: str, raw_args: dict[str, Any], call_id: str) -> tuple[Call | None, ToolResult]:
        """An unknown tool or bad arguments fail here; anything else is a ``Call`` for ``inner``."""
        spec = self.specs.get(name)
        if spec is None:
            return None, ToolResult.failure(f"Unknown tool {name!r}. Available tools: {', '.join(self.specs)}.")
        try:
            args = spec.args.model_validate(raw_args)
        except ValueError:
            return None, spec(raw_args, self.context)  # ToolSpec turns the validation error into a failure result
        call = Call(spec, args, raw_args, call_id)
        return call, await self.inner.call(call)
