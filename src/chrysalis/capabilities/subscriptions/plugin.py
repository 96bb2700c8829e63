"""The subscriptions plug-in: what the conversation follows, read once per run, and the tools to change it."""

from __future__ import annotations

from chrysalis.capabilities.memory.plugin import offers_memory_tools
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.capabilities.subscriptions.following import subscription_tools
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["SubscriptionsPlugin"]


class SubscriptionsPlugin(NoHooks):
    """Subscriptions belong to a stored conversation: sub-agents and durable runs get none."""

    name = "subscriptions"

    def __init__(self) -> None:
        self._read: tuple[str, str] = ("", "")
        """(run id, its section): read once per run, so a refining model sees what the draft saw."""

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The section of what the conversation follows, and ``subscribe``/``unsubscribe`` where offered."""
        conversation = run.conversation
        if conversation is None or not run.saved:
            return Offer()
        if self._read[0] != run.run_id:
            text = conversation.subscriptions.prompt_section(run.memory, run.settings.subscription_chars)
            self._read = (run.run_id, text)
        tools = subscription_tools(conversation.subscriptions) if offers_memory_tools(run) else {}
        return Offer(tools, self._read[1], "tail")
