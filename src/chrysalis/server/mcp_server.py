"""``chrysalis serve --mcp``: the agent's tools and ``run_task`` for any MCP client, over stdio.

Built on the SDK's low-level ``Server`` (not ``MCPServer``): the tool list and every call are ours
to decide. ``tools/list`` shows the built-in tools the settings' level and mode allow (a refused
tool is not listed); ``tools/call`` goes through the same gate as a run (``GatedTools``), so a call
to a tool the policy refuses, or an unknown one, answers ``isError: true`` and never has its effect.
Nobody can approve over stdio: ``--yes`` approves what the level allows, otherwise a call that needs
approval answers ``isError`` naming ``--yes``. ``run_task`` runs the whole agent in the workspace.

While serving, the SDK points fd 1 at stderr: only protocol messages reach stdout; logs go to stderr.
Each call is recorded in the traces (``$CHRYSALIS_HOME/traces.jsonl``) under one ``mcp-...`` run id.
"""

from __future__ import annotations

import json
import logging
import sys
import uuid
from typing import TYPE_CHECKING, Any

from chrysalis.agent.guards import RunGuards
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.session import AgentSession
from chrysalis.agent.toolset import GatedTools
from chrysalis.config import Settings
from chrysalis.errors import EXIT_OK, ChrysalisError, PolicyDenied
from chrysalis.events import Event
from chrysalis.evolve.priority import plan_for
from chrysalis.stores import Stores
from chrysalis.tools.registry import builtin_tools

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp_types import CallToolRequestParams, CallToolResult, ListToolsResult, PaginatedRequestParams, Tool

__all__ = ["RUN_TASK", "McpBridge", "serve_mcp"]

RUN_TASK = "run_task"
_RUN_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "What the agent should do, in plain words."}},
    "required": ["task"],
}


class McpBridge:
    """The agent's tools and ``run_task`` as MCP handlers, under one settings' policy."""

    def __init__(self, settings: Settings, stores: Stores) -> None:
        self.settings = settings
        self.stores = stores
        self.run_id = f"mcp-{uuid.uuid4().hex[:8]}"
        tools = builtin_tools()
        self.limits = RunLimits.of(settings, plan_for(settings.priority))
        self.gate = GatedTools.for_run(
            settings,
            tools,
            run_id=self.run_id,
            checkpoints=stores.checkpoints,
            emit=self._emit,
            approver=None,
            limits=self.limits,
        )
        self.listed = {name: spec for name, spec in tools.items() if self.gate.policy.lists(spec)}
        """What ``tools/list`` shows: offered by the mode and within the level (the rest would be refused)."""
        self.gate.specs = tools  # a call to an unlisted tool is refused by the policy, which says what would allow it
        self._calls = 0

    def _emit(self, event: Event) -> None:
        self.stores.traces.record(event.run_id, event.to_json())

    def tools(self) -> list[Tool]:
        """The listed tools and ``run_task``, each with its JSON schema."""
        from mcp_types import Tool

        tools = [
            Tool(name=s.name, description=s.description, input_schema=s.json_schema()) for s in self.listed.values()
        ]
        about = (
            f"Run the Chrysalis agent on TASK in {self.settings.workspace} (level {self.settings.level}, mode "
            f"{self.settings.mode}) and return its answer."
        )
        return [*tools, Tool(name=RUN_TASK, description=about, input_schema=_RUN_TASK_SCHEMA)]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Run one call through the gate (or the agent for ``run_task``): (text, is_error)."""
        if name == RUN_TASK:
            return await self.run_task(arguments.get("task"))
        self._calls += 1
        # each call stands alone: no "repeated call" across clients' calls
        self.gate.guards = RunGuards(max_red_flags=self.limits.max_red_flags)
        self.gate.denials.clear()  # a refusal answers this call; it does not end the server
        try:
            answer = await self.gate.call(name, arguments, f"{self.run_id}-{self._calls}")
        except PolicyDenied as exc:
            return str(exc), True
        if answer["ok"]:
            result = answer["result"]
            return (result if isinstance(result, str) else json.dumps(result)), False
        return str(answer["error"]), True

    async def run_task(self, task: Any) -> tuple[str, bool]:
        """The whole agent on ``task``: its answer, an error when the run failed or could not start."""
        if not isinstance(task, str) or not task.strip():
            return "run_task needs a non-empty 'task' string.", True
        session = AgentSession(self.settings, stores=self.stores)
        try:
            result = await session.run(task)
        except ChrysalisError as exc:
            return f"The run failed ({type(exc).__name__}): {exc}", True
        finally:
            session.close()
        if not result.success:
            return f"{result.output}\n\n(The run did not succeed: {result.problem or 'its check failed'}.)", True
        return result.output, False


def serve_mcp(settings: Settings) -> int:
    """Serve until the client closes stdin; 0 then."""
    import anyio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="chrysalis serve --mcp: %(message)s")
    for warning in settings.warnings:
        logging.getLogger("chrysalis").warning(warning)
    anyio.run(_serve, settings)
    return EXIT_OK


async def _serve(settings: Settings) -> None:
    from importlib import metadata

    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp_types import CallToolResult, ListToolsResult, TextContent

    stores = Stores.open(settings.home)
    bridge = McpBridge(settings, stores)

    async def list_tools(_ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=bridge.tools())

    async def call_tool(_ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        text, is_error = await bridge.call(params.name, dict(params.arguments or {}))
        return CallToolResult(content=[TextContent(text=text)], is_error=is_error)

    try:
        version = metadata.version("chrysalis-forge")
    except metadata.PackageNotFoundError:
        version = "0"
    about = "Chrysalis Forge's tools under its security policy, and run_task."
    server: Server[Any] = Server(
        "chrysalis", version=version, instructions=about, on_list_tools=list_tools, on_call_tool=call_tool
    )
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        stores.close()
