"""``chrysalis schedule add | list | remove``: the schedules as the terminal sees them (``runtime/schedules.py``).

``add`` checks everything ``submit`` checks (the run's settings, the urgency, the task) and the cron
expression or event, before anything is stored: a bad one exits 2 naming it.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from chrysalis.cli.queue_cmd import open_runs, run_options
from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import EXIT_OK, UsageError

__all__ = ["schedule_add_command", "schedule_list_command", "schedule_remove_command"]


def schedule_add_command(
    when: str, task: str | None, flags: SettingFlags, *, on: str | None, urgency: str, json_output: bool
) -> int:
    """Store a schedule (``CRON TASK``, or ``--on EVENT TASK``); prints its id (or the schedule as JSON)."""
    from chrysalis.runtime.queue import check_task, priority
    from chrysalis.runtime.schedules import add

    if on is not None and task is not None:
        raise UsageError(f"Give CRON or --on EVENT, not both: got CRON {when!r} and --on {on!r}.")
    if on is None and task is None:
        raise UsageError(
            f"Missing TASK after CRON {when!r}: chrysalis schedule add CRON TASK (or --on EVENT TASK), "
            "e.g. chrysalis schedule add '0 9 * * 1-5' \"run the tests\"."
        )
    task = when if task is None else task
    check_task(task)
    priority(urgency)
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    with open_runs(settings) as (url, runs):
        schedule = add(url, runs, task, run_options(flags, settings), urgency, when=when if on is None else f"on:{on}")
    print(json.dumps(schedule.to_json()) if json_output else schedule.id)
    return EXIT_OK


def schedule_list_command(*, json_output: bool) -> int:
    """List the schedules (``--json``: ``[{id, cron, on, task, workspace, urgency}]``)."""
    from chrysalis.runtime.schedules import listed

    with open_runs() as (url, runs):
        schedules = listed(url, runs)
    if json_output:
        print(json.dumps([schedule.to_json() for schedule in schedules]))
        return EXIT_OK
    table = Table("id", "when", "urgency", "task", "workspace")
    for schedule in schedules:
        when = schedule.cron or f"on {schedule.on}"
        table.add_row(schedule.id, when, schedule.urgency, schedule.task[:60], str(schedule.to_json()["workspace"]))
    Console(highlight=False, soft_wrap=True).print(table)
    return EXIT_OK


def schedule_remove_command(schedule_id: str, *, json_output: bool) -> int:
    """Remove a schedule; an unknown id exits 2 naming it."""
    from chrysalis.runtime.schedules import remove

    with open_runs() as (url, runs):
        schedule = remove(url, runs, schedule_id)
    print(json.dumps(schedule.to_json()) if json_output else f"Removed schedule {schedule.id}.")
    return EXIT_OK
