"""The innermost tools: run a call that passed every gate, off the event loop when it may block.

An async tool (sub-agents, ``repair``, MCP servers' tools) is awaited in the loop without its
``around`` managers: no workspace snapshot covers it (an MCP tool at level 3 included).
"""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from dataclasses import dataclass

from chrysalis.agent.gate.call import Call
from chrysalis.errors import UsageError
from chrysalis.tools.base import ToolContext, ToolResult

__all__ = ["RunTools"]

_THREADED_EFFECTS = frozenset({"shell", "network"})


@dataclass(kw_only=True)
class RunTools:
    """Runs each call in ``context``: an async tool awaited, a command or fetch in a worker thread."""

    context: ToolContext

    async def call(self, call: Call) -> ToolResult:
        """Run the call; a cancelled run stops its commands rather than let them run on to their timeout."""
        if call.spec.arun is not None:
            return await call.spec.arun_validated(call.args, self.context)
        try:
            if call.around or call.spec.effect in _THREADED_EFFECTS:
                return await asyncio.to_thread(self._blocking, call)
        except asyncio.CancelledError:
            self.context.commands.stop_all()
            raise
        return self._blocking(call)

    def _blocking(self, call: Call) -> ToolResult:
        """Enter the call's ``around`` managers, then run it, in this one thread (a snapshot after sees it all)."""
        with ExitStack() as stack:
            try:
                for around in call.around:
                    stack.enter_context(around())
            except UsageError as exc:  # no snapshot (no git, a workspace too big): a change that could not be undone
                return ToolResult.failure(f"Not run: {exc}")
            return call.spec.run_validated(call.args, self.context)
