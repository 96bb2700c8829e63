"""The knowledge-graph plug-in, the smallest one: a capability that only offers tools.

Copy this file to add a capability: a class with a ``name`` and the hooks it needs (``NoHooks``
supplies the rest), then one line in ``chrysalis/capabilities/registry.py``.
"""

from __future__ import annotations

from chrysalis.capabilities.knowledge.tools import kg_tools
from chrysalis.capabilities.memory.plugin import offers_memory_tools
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["KnowledgePlugin"]


class KnowledgePlugin(NoHooks):
    """The knowledge graph's tools, for the runs that get memory tools."""

    name = "knowledge"

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """``kg_add``, ``kg_query`` and ``kg_remove`` over the session's knowledge store."""
        return Offer(kg_tools(run.stores.knowledge) if offers_memory_tools(run) else {})
