"""``chrysalis mcp list``: every configured MCP server, where it was configured, its state and its tools.

Each server is started, asked for its tools and stopped again, so the list shows what a run would
get. Exit 1 when a server failed to start (a script can notice), 2 for a bad ``mcp.json``.
"""

from __future__ import annotations

import asyncio
import json

from rich.console import Console
from rich.markup import escape

from chrysalis.capabilities.mcp.servers import server_states
from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import EXIT_FAILED, EXIT_OK

__all__ = ["mcp_list_command"]


def mcp_list_command(flags: SettingFlags, *, json_output: bool) -> int:
    """List the servers of ``$CHRYSALIS_HOME/mcp.json`` and the workspace's ``.mcp.json`` / ``.chrysalis/mcp.json``."""
    settings = load_settings(flags)
    servers = asyncio.run(server_states(settings))
    failed = any(s["state"].startswith("failed") for s in servers)
    if json_output:
        print(json.dumps({"workspace": str(settings.workspace), "servers": servers}, indent=2))
        return EXIT_FAILED if failed else EXIT_OK
    console = Console(highlight=False, soft_wrap=True)
    if not servers:
        ws = settings.workspace
        console.print(
            f"No MCP servers configured (looked in {settings.home / 'mcp.json'}, {ws / '.mcp.json'} "
            f"and {ws / '.chrysalis' / 'mcp.json'})."
        )
    for server in servers:
        target = server.get("url") or " ".join([server["command"], *server["args"]])
        console.print(f"[bold]{escape(server['name'])}[/bold]  {escape(target)}  ({escape(server['source'])})")
        console.print(f"  state: {escape(server['state'])}" + (f" — run `{server['fix']}`" if "fix" in server else ""))
        for tool in server["tools"]:
            about = escape(_first_line(tool["description"]))
            console.print(f"  {escape(tool['name'])}  level {tool['level']}  {about}")
    return EXIT_FAILED if failed else EXIT_OK


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 80 else line[:77] + "..."
