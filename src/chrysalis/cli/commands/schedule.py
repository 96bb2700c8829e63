"""``chrysalis schedule add | list | remove``: tasks submitted on a cron schedule or on a run event, by the workers."""

from __future__ import annotations

from typing import Annotated

import typer

from chrysalis.cli.commands.runtime import UrgencyOpt
from chrysalis.cli.guard import guarded
from chrysalis.cli.options import (
    BaseUrlOpt,
    BudgetOpt,
    JsonArrayOpt,
    JsonObjectOpt,
    LevelOpt,
    ModelOpt,
    ModeOpt,
    PriorityOpt,
    StepsOpt,
    TimeoutOpt,
    WorkspaceOpt,
    YesOpt,
    config_flags,
)

__all__ = ["schedule_app"]

schedule_app = typer.Typer(
    help="Scheduled runs: a task the workers submit on a cron schedule, or once per matching run event.",
    add_completion=False,
    no_args_is_help=True,
)


@schedule_app.command("add")
def add(
    when: Annotated[
        str,
        typer.Argument(
            metavar="CRON",
            help="5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; "
            "with --on, leave it out.",
        ),
    ],
    task: Annotated[str | None, typer.Argument(metavar="TASK", help="What the agent should do.")] = None,
    on: Annotated[
        str | None, typer.Option("--on", metavar="EVENT", help="Submit once per logged run event of this type.")
    ] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    level: LevelOpt = None,
    mode: ModeOpt = None,
    yes: YesOpt = False,
    workspace: WorkspaceOpt = None,
    urgency: UrgencyOpt = "normal",
    priority: PriorityOpt = None,
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    max_steps: StepsOpt = None,
    json_output: JsonObjectOpt = False,
) -> None:
    """Add a schedule (prints its id); the workers submit TASK at each slot, as `chrysalis submit` would."""
    from chrysalis.cli.schedule_cmd import schedule_add_command

    flags = config_flags(
        model=model,
        base_url=base_url,
        level=level,
        mode=mode,
        yes=yes,
        workspace=workspace,
        priority=priority,
        budget=budget,
        timeout=timeout,
        max_steps=max_steps,
    )
    raise typer.Exit(
        guarded(lambda: schedule_add_command(when, task, flags, on=on, urgency=urgency, json_output=json_output))
    )


@schedule_app.command("list")
def list_(json_output: JsonArrayOpt = False) -> None:
    """List the schedules: id, cron (or event), task, workspace, urgency."""
    from chrysalis.cli.schedule_cmd import schedule_list_command

    raise typer.Exit(guarded(lambda: schedule_list_command(json_output=json_output)))


@schedule_app.command("remove")
def remove(
    schedule_id: Annotated[str, typer.Argument(metavar="ID", help="The id `chrysalis schedule list` shows.")],
    json_output: JsonObjectOpt = False,
) -> None:
    """Remove a schedule: the workers stop submitting it within about 2 s (its runs stay)."""
    from chrysalis.cli.schedule_cmd import schedule_remove_command

    raise typer.Exit(guarded(lambda: schedule_remove_command(schedule_id, json_output=json_output)))
