"""Running MCP servers and offering their tools as ``ToolSpec``s named ``mcp__SERVER__TOOL``.

Each server's connection (its process or HTTP session, and the SDK's ``ClientSession``) is owned
by one background task from start to stop: the SDK's transports are anyio contexts that must be
left in the task that entered them, and a run's own task must not inherit their cancel scopes.
Tools are called from any task through the session. Servers start concurrently; one that cannot
be started, or does not answer ``initialize`` in time, is a ``UsageError`` naming it and its file
(``McpServers.start``), or a ``failed: reason`` state when listing (``tolerant=True``).

A stdio server runs in the sandbox of shell commands (``mcp_sandbox.py``), with what the run's
policy gives it (``Policy.server_access``: the workspace writable or not, the network or not); its
tools then say whether a call may change files (``McpToolSpec.writes_workspace``), and the gate
puts a call of those between two workspace snapshots, as it does a command (undo covers it).

The server's stderr goes to ``$CHRYSALIS_HOME/logs/mcp-NAME.log``, not to the user's terminal.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict

from chrysalis.errors import UsageError
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.mcp_config import LEVEL_EFFECTS, McpServerAccess, McpServerConfig
from chrysalis.tools.mcp_sandbox import confine_server
from chrysalis.tools.sandbox import SandboxOptions, SandboxUnavailable

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp_types import CallToolResult, Tool

__all__ = ["Access", "McpArgs", "McpServer", "McpServers", "McpToolSpec", "tool_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
Access = Callable[[McpServerConfig], McpServerAccess]
"""What a server's sandbox allows (``partial(Policy.server_access, trusted=...)``); a ``UsageError`` refuses it."""


class McpArgs(ToolArgs):
    """An MCP tool's arguments: whatever its server's schema says; the server validates them."""

    model_config = ConfigDict(extra="allow", frozen=True)


@dataclass(frozen=True)
class McpToolSpec(ToolSpec):
    """A ``ToolSpec`` whose JSON schema is the server's own (not a pydantic model of ours)."""

    input_schema: Mapping[str, Any] = field(default_factory=dict[str, Any])
    server: str = ""
    writes_workspace: bool = False
    """Its server may change files in the workspace (writable sandbox, or none): each call is snapshotted around."""

    def json_schema(self) -> dict[str, Any]:
        """The server's input schema, as it listed it."""
        return dict(self.input_schema)


def tool_name(server: str, tool: str) -> str:
    """The name the model sees: ``mcp__SERVER__TOOL`` (characters models refuse become ``_``)."""
    return f"mcp__{server}__{_UNSAFE.sub('_', tool)}"


class McpServer:
    """One configured server: its state (``ready``, ``failed: ...``, ``stopped``), its tools, its session."""

    def __init__(
        self, config: McpServerConfig, *, workspace: Path, log_dir: Path, access: Access, options: SandboxOptions
    ) -> None:
        self.config = config
        self.workspace = workspace
        self.log_dir = log_dir
        self.access = access
        self.options = options
        self.writes_workspace = config.url is None  # until confined: assume it may (a stdio server unconfined may)
        self.state = "not started"
        self.error: str | None = None
        self.tools: list[Tool] = []
        self._session: ClientSession | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the server in its own task and wait until it is ready or has failed (never raises)."""
        self._task = asyncio.create_task(self._own(), name=f"mcp server {self.config.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.timeout)
        except TimeoutError:
            self._fail(f"it did not answer initialize within {self.config.timeout:g} s")
            await self.stop()

    async def stop(self) -> None:
        """Stop the server (close its stdin, then terminate its process) and wait until it is gone."""
        self._stop.set()
        if self._task is not None:
            task, self._task = self._task, None
            if self.state != "ready":  # still starting (timed out): nothing to close politely
                task.cancel()
            await asyncio.wait({task}, timeout=15)  # neither raises nor swallows the caller's own cancellation
            if not task.done():
                task.cancel()
        self._session = None
        if self.state == "ready":
            self.state = "stopped"

    def specs(self) -> dict[str, ToolSpec]:
        """The server's tools as ``ToolSpec``s, each at the level the config gives it."""
        return {spec.name: spec for spec in (self._spec(tool) for tool in self.tools)}

    def _spec(self, tool: Tool) -> McpToolSpec:
        level = self.config.level_of(tool.name)

        def run(_args: Any, _ctx: ToolContext) -> ToolResult:
            raise ToolError("MCP tools are called asynchronously; this caller cannot await.")

        async def arun(args: Any, _ctx: ToolContext, _tool: str = tool.name) -> ToolResult:
            return await self.call(_tool, args.model_dump())

        description = tool.description or f"The {tool.name!r} tool of the MCP server {self.config.name!r}."
        return McpToolSpec(
            name=tool_name(self.config.name, tool.name),
            description=description,
            args=McpArgs,
            effect=LEVEL_EFFECTS[level],
            level=level,
            run=run,
            arun=arun,
            input_schema=tool.input_schema or {"type": "object"},
            server=self.config.name,
            writes_workspace=self.writes_workspace,
        )

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """Call ``tool``: its text content joined, or a failure when the server says ``isError`` or is gone."""
        session = self._session
        if session is None:
            return ToolResult.failure(f"The MCP server {self.config.name!r} is not running ({self.state}).")
        try:
            result = await session.call_tool(tool, arguments)
        except Exception as exc:  # the server died or broke the protocol: the model can go on without it
            return ToolResult.failure(f"The MCP server {self.config.name!r} failed: {_reason(exc)}")
        text = _text_of(result)
        return ToolResult.failure(text or "the tool reported an error") if result.is_error else ToolResult.success(text)

    async def _own(self) -> None:
        """Enter the transport and session, initialise, list the tools, then hold them open until ``stop``."""
        try:
            async with AsyncExitStack() as stack:
                from mcp.client.session import ClientSession

                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await _all_tools(session)
                self._session, self.state = session, "ready"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            if self.state != "ready":
                raise
        except BaseException as exc:  # an ExceptionGroup from the SDK's task groups too
            self._fail(_reason(exc))
        finally:
            self._session = None

    def _transport(self, stack: AsyncExitStack) -> Any:
        """The SDK transport for the config: a subprocess over stdio, or streamable HTTP."""
        c = self.config
        if c.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            from chrysalis.tools.mcp_http import egress_client

            client = stack.push_async_exit(egress_client(self.access(c).hosts, dict(c.headers) or None))
            return streamable_http_client(c.url, http_client=client)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert c.command is not None
        if shutil.which(c.command, path=None) is None and not Path(c.command).is_file():
            raise _NotFound(f"its command {c.command!r} was not found (on PATH or as a file)")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = stack.enter_context((self.log_dir / f"mcp-{c.name}.log").open("a", encoding="utf-8"))
        access = self.access(c)
        confined = confine_server(c, self.workspace, access, self.options)
        stack.callback(confined.close)  # after the process is gone (the transport is exited first)
        self.writes_workspace = confined.kind == "none" or access.writable
        argv = confined.argv
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=confined.env, cwd=self.workspace)
        return stdio_client(params, errlog=log)

    def _fail(self, reason: str) -> None:
        if self.error is None:
            self.error = reason
            log = self.log_dir / f"mcp-{self.config.name}.log"
            said = log.is_file() and log.stat().st_size > 0 and self.config.url is None
            self.state = f"failed: {reason}" + (f" (its stderr is in {log})" if said else "")
        self._ready.set()


class _NotFound(Exception):
    """The server's command does not exist: said plainly instead of as a spawn error."""


class McpServers:
    """Several servers started together and stopped together; their tools by ``mcp__SERVER__TOOL`` name."""

    def __init__(
        self,
        configs: Sequence[McpServerConfig],
        *,
        workspace: Path,
        log_dir: Path,
        access: Access,
        options: SandboxOptions,
    ) -> None:
        self.servers = [
            McpServer(c, workspace=workspace, log_dir=log_dir, access=access, options=options) for c in configs
        ]

    async def start(self, *, tolerant: bool = False) -> None:
        """Start every server concurrently.

        Raises:
            UsageError: (unless ``tolerant``) a server failed; all are stopped first, the message names it.
        """
        await asyncio.gather(*(server.start() for server in self.servers))
        failed = [s for s in self.servers if s.error is not None]
        if failed and not tolerant:
            await self.stop()
            said = [
                f"MCP server {s.config.name!r} ({s.config.source}) could not be started: "
                f"{s.state.removeprefix('failed: ')}"
                for s in failed
            ]
            raise UsageError("; ".join(said) + ". Fix or remove it in that file, or see `chrysalis mcp list`.")

    async def stop(self) -> None:
        """Stop every server (concurrently)."""
        await asyncio.gather(*(server.stop() for server in self.servers))

    def tools(self) -> dict[str, ToolSpec]:
        """Every ready server's tools."""
        return {name: spec for server in self.servers for name, spec in server.specs().items()}


async def _all_tools(session: ClientSession) -> list[Tool]:
    """Every page of ``tools/list``."""
    from mcp_types import PaginatedRequestParams

    listed = await session.list_tools()
    tools = list(listed.tools)
    while listed.next_cursor:
        listed = await session.list_tools(params=PaginatedRequestParams(cursor=listed.next_cursor))
        tools.extend(listed.tools)
    return tools


def _text_of(result: CallToolResult) -> str:
    """The result's text blocks joined; other blocks named; structured content when there is no text."""
    parts: list[str] = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "resource" and hasattr(block.resource, "text"):
            parts.append(block.resource.text)
        else:
            parts.append(f"[{block.type} content, {getattr(block, 'mime_type', '') or 'no type'}]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content))
    return "\n".join(parts)


def _reason(exc: BaseException) -> str:
    """The innermost message of ``exc`` (the SDK raises exception groups from its task groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found ({exc.filename or exc})"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, _NotFound | UsageError | SandboxUnavailable) else f"{type(exc).__name__}: {text}"
