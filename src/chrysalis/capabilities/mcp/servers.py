"""A run's MCP servers: started when the run starts, their tools offered through the gate, stopped when it ends.

Per run, not per session: the REPL and ``Agent.run_sync`` give each task its own event loop, and a
server's pipes belong to the loop that opened them. Starting costs one process per server (its
``initialize`` answered concurrently); a session with no servers configured costs a few file checks.
Sub-agents get no MCP tools of their own (their tools are a profile of the parent's built-ins).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import partial
from typing import Any

from chrysalis.config import Settings
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.mcp_client import McpServers
from chrysalis.tools.mcp_config import McpConfig, load_mcp_config
from chrysalis.tools.policy import Policy
from chrysalis.tools.sandbox import SandboxOptions

__all__ = ["RunMcp", "doctor_mcp", "server_states"]

_log = logging.getLogger("chrysalis.mcp")
_told: set[str] = set()
"""The trust hints already given in this process: the user is told once, not before every run."""


class RunMcp:
    """The MCP servers of an ``AgentSession``'s runs: ``await start()``, ``tools()``, ``await stop()``."""

    def __init__(self, settings: Settings, extra: Mapping[str, Mapping[str, Any]] | None, *, enabled: bool) -> None:
        self.settings = settings
        self.extra = extra
        self.enabled = enabled
        self._servers: McpServers | None = None

    async def start(self, policy: Policy) -> None:
        """Read the config (again: it may have changed between runs) and start its servers, confined as ``policy`` says.

        Raises:
            UsageError: a bad ``mcp.json``, or a server that could not be started (named, with its file).
        """
        await self.stop()
        if not self.enabled:
            return
        config = load_mcp_config(self.settings, self.extra)
        _tell_once(config)
        if not config.servers:
            return
        self._servers = _servers(self.settings, config, policy)
        await self._servers.start()

    def tools(self) -> dict[str, ToolSpec]:
        """The running servers' tools, ``mcp__SERVER__TOOL`` each (none before ``start``)."""
        return self._servers.tools() if self._servers is not None else {}

    async def stop(self) -> None:
        """Stop the servers of the last run, if any."""
        servers, self._servers = self._servers, None
        if servers is not None:
            await servers.stop()


def _servers(settings: Settings, config: McpConfig, policy: Policy) -> McpServers:
    """The configured servers, each confined as ``policy`` says (``Policy.server_access``)."""
    return McpServers(
        config.servers,
        workspace=settings.workspace,
        log_dir=settings.home / "logs",
        access=partial(policy.server_access, trusted=config.trusted),
        options=SandboxOptions.from_settings(settings),
    )


def _tell_once(config: McpConfig) -> None:
    hint = config.trust_hint
    if hint and hint not in _told:
        _told.add(hint)
        _log.warning(hint)


async def server_states(settings: Settings) -> list[dict[str, Any]]:
    """Every configured server with its state (``ready``, ``failed: ...``, ``not started: ...``) and tools.

    Each ready server is started, asked for its tools and stopped again (``chrysalis mcp list``, ``doctor``).

    Raises:
        UsageError: an ``mcp.json`` is not valid JSON or not in the expected shape.
    """
    config = load_mcp_config(settings)
    servers = _servers(settings, config, Policy.from_settings(settings))
    try:
        await servers.start(tolerant=True)
    finally:
        await servers.stop()
    rows: list[dict[str, Any]] = []
    for server in servers.servers:
        specs = server.specs().values()
        tools = [{"name": s.name, "level": s.level, "description": s.description} for s in specs]
        state = "ready" if server.error is None else f"failed: {server.error}"
        rows.append(server.config.to_json() | {"state": state, "tools": tools})
    for untrusted in config.untrusted:
        rows.append(
            untrusted.to_json()
            | {"state": "not started: folder not trusted", "tools": [], "fix": f"chrysalis trust {settings.workspace}"}
        )
    return rows


def doctor_mcp(settings: Settings) -> list[dict[str, Any]]:
    """``chrysalis doctor``'s MCP section: each server's name, source, state and the fix when it is not ready.

    A bad ``mcp.json`` is one entry saying so (doctor reports every problem; it does not stop at one).
    """
    import asyncio

    from chrysalis.errors import UsageError

    try:
        servers = asyncio.run(server_states(settings))
    except UsageError as exc:
        return [{"name": None, "source": None, "state": f"failed: {exc}", "fix": "fix the file named above"}]
    shown: list[dict[str, Any]] = []
    for server in servers:
        row = {
            "name": server["name"],
            "source": server["source"],
            "state": server["state"],
            "tools": len(server["tools"]),
        }
        if server["state"].startswith("failed"):
            row["fix"] = f"fix or remove mcpServers.{server['name']} in {server['source']}"
        elif "fix" in server:
            row["fix"] = server["fix"]
        shown.append(row)
    return shown
