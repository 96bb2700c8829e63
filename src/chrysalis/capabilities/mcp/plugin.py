"""The MCP plug-in: the configured servers start with each run and stop when it ends, however it ends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chrysalis.capabilities.mcp.servers import RunMcp
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.config import Settings
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["McpPlugin"]


class McpPlugin(NoHooks):
    """A session's MCP servers (``mcp.json``, and those a program hands in); none for a sub-agent."""

    name = "mcp"

    def __init__(self, settings: Settings, extra: Mapping[str, Mapping[str, Any]] | None, *, enabled: bool) -> None:
        self.servers = RunMcp(settings, extra, enabled=enabled)

    async def start(self, run: RunScope) -> None:
        """Start the servers (the config is read again: it may have changed since the last run)."""
        await self.servers.start(run.policy)

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The running servers' tools."""
        return Offer(self.servers.tools())

    async def finish(self, run: RunScope) -> None:
        """Stop the servers: no server outlives its run."""
        await self.servers.stop()
