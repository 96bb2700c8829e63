"""The sub-agents plug-in: each run of the ``all`` profile gets its own sub-agents, cancelled when it ends."""

from __future__ import annotations

from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.capabilities.subagents.agents import SubAgents
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["SubAgentsPlugin"]


class SubAgentsPlugin(NoHooks):
    """Sub-agents of a top-level, non-durable run whose tools are all of them (the tree is one level deep)."""

    name = "subagents"

    def __init__(self) -> None:
        self._runs: dict[str, SubAgents] = {}

    async def start(self, run: RunScope) -> None:
        """Ready the run's sub-agents (a durable run's records replay in order; concurrent children have none)."""
        if run.spawn is None or run.sub_agent or run.durable or run.profile != "all" or run.run_id in self._runs:
            return
        self._runs[run.run_id] = SubAgents(run.spawn, run.settings, run.run_id, spent=run.spent, charge=run.charge)

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The three sub-agent tools, bound to this run."""
        subagents = self._runs.get(run.run_id)
        return Offer(subagents.tools() if subagents is not None else {})

    async def finish(self, run: RunScope) -> None:
        """Cancel the sub-agents still running and wait until each has recorded how it ended."""
        subagents = self._runs.pop(run.run_id, None)
        if subagents is not None:
            await subagents.close()
