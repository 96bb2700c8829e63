"""The council of personas (seed 003): ``personas list``."""

from __future__ import annotations

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import JsonArrayOpt, WorkspaceOpt, config_flags

__all__ = ["personas_app"]

personas_app = typer.Typer(
    help="The council's personas: the built-ins and those from personas/NAME.toml files.", add_completion=False
)


@personas_app.command("list")
def personas_list(workspace: WorkspaceOpt = None, json_output: JsonArrayOpt = False) -> None:
    """List the personas a council would seat: name, priority, mode and source (builtin or the file)."""
    from chrysalis.cli.personas_cmd import personas_list_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: personas_list_command(flags, json_output=json_output)))
