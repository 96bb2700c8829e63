"""The one protocol a capability implements: what it offers a run, what it hears, what it closes.

A capability is something the agent can gain (memory, skills, MCP servers, repair, sub-agents, ...).
The run never edits itself to add one: run assembly asks every enabled capability the same four
questions, in the registry's order (``chrysalis.capabilities.registry``)::

    start(run)    before the prompt and tools are built: start servers, compact the conversation
    offer(run)    the tools it adds and the section of the system prompt it writes
    on_event(e)   every event of the session's runs (telemetry listens here)
    finish(run)   the run has ended, however it ended: stop servers, cancel sub-agents
    close()       the session is closing: flush and release what lives across runs

The protocol is generic in the run's scope and the tool type so that it can live in the base layer;
``chrysalis.capabilities.scope`` binds it to the real ``RunScope`` and ``ToolSpec``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, Protocol, TypeVar

from chrysalis.events import Event

__all__ = ["Capability", "Offer", "PromptPlace"]

RunT = TypeVar("RunT", contravariant=True)
ToolT = TypeVar("ToolT")

PromptPlace = Literal["head", "tail"]
"""Where a capability's prompt section goes: ``head`` before the project's rules and file map (stable
from task to task, so the model's cache keeps it), ``tail`` after them (it changes between runs)."""


@dataclass(frozen=True)
class Offer(Generic[ToolT]):
    """What one capability adds to one run."""

    tools: Mapping[str, ToolT] = field(default_factory=dict[str, ToolT])
    prompt: str = ""
    place: PromptPlace = "tail"


class Capability(Protocol[RunT, ToolT]):
    """A capability of the agent: asked by run assembly at the start and the end of every run."""

    name: str
    """Its folder's name under ``chrysalis/capabilities/``, shown in errors and docs."""

    async def start(self, run: RunT) -> None:
        """Get ready for ``run`` (before its prompt and tools are built)."""
        ...

    def offer(self, run: RunT) -> Offer[ToolT]:
        """The tools and prompt section it adds to ``run`` (an empty ``Offer`` when it has none for it)."""
        ...

    def on_event(self, event: Event) -> None:
        """Hear one event of the session's runs."""
        ...

    async def finish(self, run: RunT) -> None:
        """``run`` has ended, however it ended: release what ``start`` took."""
        ...

    def close(self) -> None:
        """The session is closing: release what lives across its runs."""
        ...
