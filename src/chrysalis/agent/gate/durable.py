"""A durable run records each call's effect, so a resumed run neither loses nor repeats it."""

from __future__ import annotations

from dataclasses import dataclass

from chrysalis.agent.durability import Durability, interrupted
from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.tools.base import ToolResult

__all__ = ["DurableTools"]


@dataclass(kw_only=True)
class DurableTools(Wrapper):
    """Each call that passed the gate runs once, through ``durability``; on replay its record answers."""

    durability: Durability | None
    """None: not durable, every call just runs."""

    async def call(self, call: Call) -> ToolResult:
        """The recorded result, or the call's, recorded; marks a call a crash interrupted (it had no result)."""
        if self.durability is None:
            return await self.inner.call(call)
        result = await self.durability.tool(call.spec, call.args, lambda: self.inner.call(call))
        call.interrupted = result == interrupted(call.spec.name)
        return result
