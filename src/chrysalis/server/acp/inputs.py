"""What an ACP client hands us, in our terms: a prompt's content blocks as one task, its MCP servers as our config.

Kept apart from the agent so both conversions are plain functions, tested without a connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    AcpMcpServer,
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    ResourceContentBlock,
    SseMcpServer,
    TextContentBlock,
    TextResourceContents,
)

from chrysalis.errors import UsageError

__all__ = ["ClientMcpServer", "PromptBlock", "mcp_servers_config", "prompt_task"]

PromptBlock = (
    TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
)
ClientMcpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def prompt_task(blocks: Sequence[PromptBlock], workspace: Path) -> str:
    """The task the agent runs: the prompt's text, links named inline, embedded files appended as context.

    A link to a file in the workspace reads as its workspace-relative path (the model can ``read_file``
    it); any other link as its URI. Images and audio are not taken (``initialize`` says so), so a
    client that sends them anyway gets a note in their place rather than silence.

    Raises:
        UsageError: the prompt holds no text at all.
    """
    parts: list[str] = []
    context: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(_link(block.uri, workspace))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            where = _link(resource.uri, workspace)
            if isinstance(resource, TextResourceContents):
                parts.append(where)
                context.append(f'<context source="{where}">\n{resource.text}\n</context>')
            else:
                parts.append(f"{where} (binary content, not shown)")
        else:
            parts.append(f"[{block.type} omitted: this agent takes text only]")
    task = " ".join(part.strip() for part in parts if part.strip())
    if not task:
        raise UsageError("The prompt is empty: say what the agent should do.")
    return "\n\n".join([task, *context])


def _link(uri: str, workspace: Path) -> str:
    """A file URI inside ``workspace`` as its relative path; anything else as given."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = Path(unquote(parsed.path))
    try:
        return path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return str(path)


def mcp_servers_config(servers: Sequence[ClientMcpServer]) -> dict[str, dict[str, Any]]:
    """The client's MCP servers in our per-server format (Claude Code's ``mcpServers`` values).

    ``{"NAME": {"command": ..., "args": [...], "env": {...}}}`` for stdio, ``{"NAME": {"url": ...,
    "headers": {...}}}`` for streamable HTTP. ``initialize`` offers stdio and HTTP only.

    Raises:
        UsageError: a server uses another transport, or two servers share a name; the message names it.
    """
    config: dict[str, dict[str, Any]] = {}
    for server in servers:
        if server.name in config:
            raise UsageError(f"Two MCP servers are named {server.name!r}: give each a different name.")
        if isinstance(server, McpServerStdio):
            config[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {var.name: var.value for var in server.env},
            }
        elif isinstance(server, HttpMcpServer):
            entry: dict[str, Any] = {"url": server.url}
            if server.headers:
                entry["headers"] = {header.name: header.value for header in server.headers}
            config[server.name] = entry
        else:
            raise UsageError(
                f"MCP server {server.name!r} uses the {server.type} transport, which Chrysalis does "
                "not take: give it as a command (stdio) or an http URL."
            )
    return config
