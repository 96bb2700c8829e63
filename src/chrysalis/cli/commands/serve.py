"""The agent for other programs and for the browser: ``serve`` (MCP, ACP, HTTP) and ``ui`` (the dashboard)."""

from __future__ import annotations

from typing import Annotated

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import BaseUrlOpt, LevelOpt, ModelOpt, ModeOpt, WorkspaceOpt, YesOpt, config_flags

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``ui`` to ``app``, in that order."""
    app.command()(serve)
    app.command()(ui)


def serve(
    mcp: Annotated[bool, typer.Option("--mcp", help="An MCP server over stdio (tools, run_task).")] = False,
    acp: Annotated[bool, typer.Option("--acp", help="An ACP agent over stdio, for editors such as Zed.")] = False,
    http: Annotated[bool, typer.Option("--http", help="The HTTP service (/v1/runs, /openapi.json).")] = False,
    host: Annotated[str, typer.Option("--host", help="HTTP: the address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option("--port", help="HTTP: the port (0 picks a free one).")] = 8765,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="HTTP: runs executed at once (0: none, `chrysalis worker` runs them).")
    ] = 2,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
) -> None:
    """Serve the agent to other programs: MCP or ACP over stdio, or a local HTTP API."""
    from chrysalis.cli.serve_cmd import serve_command

    flags = config_flags(model=model, base_url=base_url, mode=mode, level=level, workspace=workspace, yes=yes)
    raise typer.Exit(
        guarded(
            lambda: serve_command(flags, mcp=mcp, acp=acp, http=http, host=host, port=port, concurrency=concurrency)
        )
    )


def ui(
    port: Annotated[int, typer.Option("--port", help="The port on 127.0.0.1 (0 picks a free one).")] = 0,
    workspace: WorkspaceOpt = None,
) -> None:
    """A local dashboard in the browser: runs, stats, the archive grid, decompositions, the queue."""
    from chrysalis.cli.ui_cmd import ui_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: ui_command(flags, port=port)))
