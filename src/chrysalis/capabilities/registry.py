"""Every capability, in the order run assembly asks them: one line each.

The order is the order of their tools and of their prompt sections (within the head and within the
tail): the compacted summary before the subscriptions, the subscriptions before the memories, which
come last because they change with every task (everything before them stays a prefix the model's
cache keeps). A factory returns None where its capability is off for the whole session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chrysalis.capabilities.compaction.plugin import CompactionPlugin
from chrysalis.capabilities.knowledge.plugin import KnowledgePlugin
from chrysalis.capabilities.mcp.plugin import McpPlugin
from chrysalis.capabilities.memory.plugin import MemoryPlugin
from chrysalis.capabilities.repair.plugin import RepairPlugin
from chrysalis.capabilities.scope import AgentCapability, NoHooks
from chrysalis.capabilities.skills.plugin import SkillsPlugin
from chrysalis.capabilities.subagents.plugin import SubAgentsPlugin
from chrysalis.capabilities.subscriptions.plugin import SubscriptionsPlugin
from chrysalis.config import Settings
from chrysalis.events import Event

__all__ = ["CAPABILITIES", "SessionFacts", "capabilities_for", "listeners"]


@dataclass(frozen=True)
class SessionFacts:
    """What a factory may know of the session when it is made."""

    settings: Settings
    sub_agent: bool
    mcp_servers: Mapping[str, Mapping[str, Any]] | None = None
    """MCP servers a program hands in (an editor over ACP), besides the configured ones."""


def _telemetry(facts: SessionFacts) -> AgentCapability | None:
    """Spans only when ``telemetry`` is on; a sub-agent's events reach its parent's (not imported when off)."""
    if facts.settings.telemetry == "off" or facts.sub_agent:
        return None
    from chrysalis.capabilities.telemetry.plugin import TelemetryPlugin

    return TelemetryPlugin(facts.settings)


CAPABILITIES: tuple[Callable[[SessionFacts], AgentCapability | None], ...] = (
    lambda facts: CompactionPlugin(),
    lambda facts: SubAgentsPlugin(),
    lambda facts: RepairPlugin(),
    lambda facts: SkillsPlugin(),
    lambda facts: SubscriptionsPlugin(),
    lambda facts: MemoryPlugin(),
    lambda facts: KnowledgePlugin(),
    lambda facts: McpPlugin(facts.settings, facts.mcp_servers, enabled=not facts.sub_agent),
    _telemetry,
)


def capabilities_for(facts: SessionFacts) -> tuple[AgentCapability, ...]:
    """The session's capabilities, in the registry's order, without those that are off."""
    made = (factory(facts) for factory in CAPABILITIES)
    return tuple(capability for capability in made if capability is not None)


def listeners(capabilities: tuple[AgentCapability, ...]) -> list[Callable[[Event], None]]:
    """The ``on_event`` of each capability that listens (every event passes here: skip the no-op hooks)."""
    return [c.on_event for c in capabilities if getattr(type(c), "on_event", None) is not NoHooks.on_event]
