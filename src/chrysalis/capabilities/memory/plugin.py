"""The memory plug-in: its tools for runs that may use them, the matching memories for every run."""

from __future__ import annotations

from chrysalis.capabilities.memory.tools import memory_prompt, memory_tools
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["MemoryPlugin", "offers_memory_tools"]


def offers_memory_tools(run: RunScope) -> bool:
    """Memory, knowledge and subscription tools go to the ``all`` profile and to semantic mode only.

    The other profiles are for small coding models, which pick better among their six coding tools.
    """
    return not run.tools_given and (run.profile == "all" or run.settings.mode == "semantic")


class MemoryPlugin(NoHooks):
    """Saved memories: the ones that match the task go last in the prompt (the rest stays a cached prefix)."""

    name = "memory"

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The memory tools (where offered) and the memories that best match the task."""
        s = run.settings
        tools = memory_tools(run.memory) if offers_memory_tools(run) else {}
        return Offer(tools, memory_prompt(run.memory, run.task, s.workspace, s.memory_tokens), "tail")
