"""What a capability sees of one run (``RunScope``), and a base class whose hooks do nothing.

The scope is built once per run by run assembly (``chrysalis.agent.assembly``) and is frozen: a
capability reads the run, it never changes it; what it adds goes back through its ``Offer``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from chrysalis.config import Settings
from chrysalis.events import Event
from chrysalis.plugin import Capability, Offer
from chrysalis.repair.apply import Authorise, allow_all
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.policy import Policy

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from chrysalis.capabilities.compaction.summary import Compaction
    from chrysalis.capabilities.subagents.agents import Spawn
    from chrysalis.capabilities.subscriptions.following import Subscriptions
    from chrysalis.stores.memory import MemoryStore

__all__ = ["AgentCapability", "NoHooks", "RunScope", "SavedConversation"]


class SavedConversation(Protocol):
    """The part of the session's stored conversation that capabilities use (summary, subscriptions)."""

    summary: str
    subscriptions: Subscriptions
    history: list[ModelMessage]

    def tokens(self) -> int:
        """About how many tokens the history and the summary take."""
        ...

    async def compact(self, summarise: Callable[[str], Awaitable[str]]) -> Compaction | None:
        """Fold the older turns into ``summary``; None when there is nothing older to fold."""
        ...


@dataclass(frozen=True)
class RunScope:
    """One run as capabilities see it: its task and settings, the session's stores and model, its tools."""

    run_id: str
    task: str
    settings: Settings
    stores: Stores
    emit: Callable[[Event], None]
    """Records an event in the traces and passes it to the session's listeners."""
    model: Callable[[], Model]
    """The run's model, built on first use (most capabilities never need it)."""
    model_name: str
    """The model as the user named it (the one ``auto`` picked, under ``auto``)."""
    profile: str
    """The run's tool profile (``coder``, ``all``, ...; ``custom`` when the caller gave the tools)."""
    tools: Mapping[str, ToolSpec]
    """The profile's built-in tools, before any capability adds its own."""
    tools_given: bool
    """The caller chose the tools (a sub-agent, a test): capabilities add none."""
    model_given: bool
    """The caller gave a model object (the Python API, a test): ``model_name`` is the settings', maybe another model."""
    conversation: SavedConversation | None
    """The session's conversation; None for a sub-agent's run (its conversation is not the workspace's)."""
    saved: bool
    """The run's steps are saved as a stored conversation (not a sub-agent's, not a durable run's)."""
    sub_agent: bool
    durable: bool
    policy: Policy = field(default_factory=lambda: Policy(level=0, mode="ask"))
    """The run's one policy (built once per run); capabilities ask it, never the settings, what may happen."""
    authorise_patch: Authorise = allow_all
    """Judges a patch written outside a tool call (repair's winner) as ``write_file``: policy, then approval."""
    spawn: Spawn | None = None
    """Starts a sub-agent's session (None where sub-agents are not allowed)."""
    step: Callable[[], int] = lambda: 0
    """The model request the run is at (the tool calls of that step report it)."""
    spent: Callable[[], float] = lambda: 0.0
    """What the run has spent so far (USD)."""
    charge: Callable[[float], None] = lambda _usd: None
    """Adds a cost incurred beside the loop (a sub-agent's) to the run."""

    @cached_property
    def memory(self) -> MemoryStore:
        """The memory store with the configured embedder, opened once per run for every capability."""
        from chrysalis.capabilities.memory.tools import open_memory

        return open_memory(self.stores, self.settings)


AgentCapability = Capability[RunScope, ToolSpec]
"""A capability of the agent (the base layer's generic protocol, bound to our scope and tools)."""


class NoHooks:
    """A capability's hooks that do nothing: a plug-in overrides only the ones it needs."""

    name = "?"

    async def start(self, run: RunScope) -> None:
        """Nothing to get ready."""

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """No tools and no prompt section."""
        return Offer()

    def on_event(self, event: Event) -> None:
        """Not listening."""

    async def finish(self, run: RunScope) -> None:
        """Nothing to release."""

    def close(self) -> None:
        """Nothing lives across runs."""
