"""``chrysalis provenance verify``: check that a council's records are the ones it signed."""

from __future__ import annotations

from typing import Annotated

import typer

from chrysalis.cli.guard import guarded

__all__ = ["provenance_app"]

provenance_app = typer.Typer(help="Check the signed records of a council run.", add_completion=False)


@provenance_app.command("verify")
def verify(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The council's run id.")],
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON object: {run_id, ok, verified, first_bad}.")
    ] = False,
) -> None:
    """Check every record of a council run: chain, fingerprint, signature, clock (exit 1 names the first bad one)."""
    from chrysalis.cli.provenance_cmd import provenance_verify_command

    raise typer.Exit(guarded(lambda: provenance_verify_command(run_id, json_output=json_output)))
