"""The council of personas (seed 003): ``council "TOPIC"`` and ``personas list``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import BaseUrlOpt, JsonArrayOpt, JsonEventsOpt, ModelOpt, WorkspaceOpt, config_flags

__all__ = ["council", "personas_app", "register"]


def register(app: typer.Typer) -> None:
    """Add ``council`` to ``app``."""
    app.command()(council)


def council(
    topic: Annotated[str, typer.Argument(help="What the council discusses: a change, a plan, a question.")],
    personas: Annotated[
        str | None, typer.Option("--personas", help="Comma-separated panel (default: every persona listed).")
    ] = None,
    turns: Annotated[int, typer.Option("--turns", help="Turns in all before the council ends.")] = 8,
    max_speakers: Annotated[int, typer.Option("--max-speakers", help="Most speakers in one round.")] = 2,
    diff: Annotated[
        str | None,
        typer.Option(
            "--diff",
            help="Review the workspace's change against REF (alone: the working tree against HEAD).",
            metavar="[REF]",
        ),
    ] = None,
    file: Annotated[
        list[Path] | None, typer.Option("--file", help="A file the council reads (repeat for more).", metavar="PATH")
    ] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonEventsOpt = False,
) -> None:
    """Hold a council of personas on TOPIC: who speaks is decided in the open, every turn is signed."""
    from chrysalis.cli.council_cmd import council_command

    flags = config_flags(model=model, base_url=base_url, workspace=workspace)
    raise typer.Exit(
        guarded(
            lambda: council_command(
                flags,
                topic,
                names=personas,
                turns=turns,
                max_speakers=max_speakers,
                diff=diff,
                files=file or [],
                json_output=json_output,
            )
        )
    )


personas_app = typer.Typer(
    help="The council's personas: the built-ins and those from personas/NAME.toml files.", add_completion=False
)


@personas_app.command("list")
def personas_list(workspace: WorkspaceOpt = None, json_output: JsonArrayOpt = False) -> None:
    """List the personas a council would seat: name, priority, mode and source (builtin or the file)."""
    from chrysalis.cli.personas_cmd import personas_list_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: personas_list_command(flags, json_output=json_output)))
