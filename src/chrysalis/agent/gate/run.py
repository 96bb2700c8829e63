"""The innermost tools: run a call that passed every gate, off the event loop when it may block.

An async tool (sub-agents, ``repair``, MCP servers' tools) is awaited in the loop; its ``around``
managers (the snapshots around an MCP tool whose server may write the workspace) are entered and
left in a worker thread before and after it, as they block.
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
            return await self._awaited(call)
        try:
            if call.around or call.spec.effect in _THREADED_EFFECTS:
                return await asyncio.to_thread(self._blocking, call)
        except asyncio.CancelledError:
            self.context.commands.stop_all()
            raise
        return self._blocking(call)

    async def _awaited(self, call: Call) -> ToolResult:
        """Await an async tool, between its ``around`` managers (entered and left off the event loop)."""
        if not call.around:
            return await call.spec.arun_validated(call.args, self.context)
        stack = ExitStack()
        try:
            for around in call.around:
                await asyncio.to_thread(stack.enter_context, around())
        except UsageError as exc:  # no snapshot: a change that could not be undone
            await asyncio.to_thread(stack.close)
            return ToolResult.failure(f"Not run: {exc}")
        try:
            return await call.spec.arun_validated(call.args, self.context)
        finally:
            await asyncio.shield(asyncio.to_thread(stack.close))  # the snapshot after, even if the run is cancelled

    def _blocking(self, call: Call) -> ToolResult:
        """Enter the call's ``around`` managers, then run it, in this one thread (a snapshot after sees it all)."""
        with ExitStack() as stack:
            try:
                for around in call.around:
                    stack.enter_context(around())
            except UsageError as exc:  # no snapshot (no git, a workspace too big): a change that could not be undone
                return ToolResult.failure(f"Not run: {exc}")
            return call.spec.run_validated(call.args, self.context)
