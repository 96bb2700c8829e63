"""Durable runs: ``submit``, ``worker``, ``queue``, ``show``, ``cancel``; ``approvals``, ``approve``, ``keys``."""

from __future__ import annotations

from typing import Annotated

import typer

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

__all__ = ["UrgencyOpt", "keys_app", "register"]

UrgencyOpt = Annotated[str, typer.Option("--urgency", help="critical | high | normal | low | idle.")]

keys_app = typer.Typer(
    help="The Ed25519 key pairs: the one that signs approvals, and the one that signs council records.",
    add_completion=False,
    invoke_without_command=True,
)


def register(app: typer.Typer) -> None:
    """Add ``approvals``, ``approve``, ``submit``, ``worker``, ``queue``, ``show`` and ``cancel`` to ``app``."""
    app.command()(approvals)
    app.command()(approve)
    app.command()(submit)
    app.command()(worker)
    app.command("queue")(queue_)
    app.command()(show)
    app.command()(cancel)


def approvals(json_output: JsonArrayOpt = False) -> None:
    """List the actions waiting for a signed approval (id, run, tool, arguments)."""
    from chrysalis.cli.approvals_cmd import approvals_command

    raise typer.Exit(guarded(lambda: approvals_command(json_output=json_output)))


def approve(
    request_id: Annotated[str, typer.Argument(metavar="ID", help="The request's id (from `chrysalis approvals`).")],
    deny: Annotated[bool, typer.Option("--deny", help="Refuse it: the run goes on without the action.")] = False,
    json_output: JsonObjectOpt = False,
) -> None:
    """Sign a decision on one waiting action with your key (chrysalis keys init); usable once, for 15 minutes."""
    from chrysalis.cli.approvals_cmd import approve_command

    raise typer.Exit(guarded(lambda: approve_command(request_id, deny=deny, json_output=json_output)))


def submit(
    task: Annotated[str, typer.Argument(help="What the agent should do.")],
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
    json_output: Annotated[bool, typer.Option("--json", help='One JSON object: {"id", "status"}.')] = False,
) -> None:
    """Queue a durable run and return at once (its id); `chrysalis worker` executes it."""
    from chrysalis.cli.queue_cmd import submit_command

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
    raise typer.Exit(guarded(lambda: submit_command(task, flags, urgency=urgency, json_output=json_output)))


def worker(
    concurrency: Annotated[int, typer.Option("--concurrency", help="Runs this worker executes at once.")] = 1,
    exit_when_idle: Annotated[
        bool, typer.Option("--exit-when-idle", help="Exit 0 when nothing is left to do.")
    ] = False,
    queue_concurrency: Annotated[
        int | None, typer.Option("--queue-concurrency", help="Most runs at once across all workers.")
    ] = None,
) -> None:
    """Execute queued runs (several workers, here or on other machines, share one queue)."""
    from chrysalis.cli.queue_cmd import worker_command

    raise typer.Exit(
        guarded(
            lambda: worker_command(
                concurrency=concurrency, exit_when_idle=exit_when_idle, queue_concurrency=queue_concurrency
            )
        )
    )


def queue_(
    json_output: JsonArrayOpt = False,
    watch: Annotated[bool, typer.Option("--watch", help="A live table until Ctrl-C.")] = False,
) -> None:
    """List the durable runs: id, status, urgency, task."""
    from chrysalis.cli.queue_cmd import queue_command

    raise typer.Exit(guarded(lambda: queue_command(json_output=json_output, watch=watch)))


def show(
    run_id: Annotated[str, typer.Argument(metavar="ID", help="The run's id (from submit or `chrysalis queue`).")],
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep printing events until the run ends.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON event per line, then the run.")] = False,
) -> None:
    """Print a durable run's events and its result."""
    from chrysalis.cli.queue_cmd import show_command

    raise typer.Exit(guarded(lambda: show_command(run_id, json_output=json_output, follow=follow)))


def cancel(
    run_id: Annotated[str, typer.Argument(metavar="ID", help="The run's id.")],
    json_output: JsonObjectOpt = False,
) -> None:
    """Cancel a queued or running durable run."""
    from chrysalis.cli.queue_cmd import cancel_command

    raise typer.Exit(guarded(lambda: cancel_command(run_id, json_output=json_output)))


@keys_app.callback()
def keys(ctx: typer.Context, json_output: JsonObjectOpt = False) -> None:
    """Show the approval and council records key pairs: fingerprint and files (nothing is made)."""
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.keys_cmd import keys_show_command

    raise typer.Exit(guarded(lambda: keys_show_command(json_output=json_output)))


@keys_app.command("init")
def keys_init(
    json_output: JsonObjectOpt = False,
    passphrase: Annotated[
        bool,
        typer.Option(
            "--passphrase",
            help="Encrypt the new private key with a passphrase: CHRYSALIS_KEY_PASSPHRASE if set, "
            "else asked twice (hidden) in a terminal.",
        ),
    ] = False,
) -> None:
    """Make the approval key pair under $CHRYSALIS_HOME/keys (private key mode 600; an existing pair is kept)."""
    from chrysalis.cli.keys_cmd import keys_init_command

    raise typer.Exit(guarded(lambda: keys_init_command(json_output=json_output, passphrase=passphrase)))
