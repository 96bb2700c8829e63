"""Runs and what they leave: ``run``, ``fix``, ``decompose``, then ``stats``, ``undo`` and ``sessions``."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from chrysalis.cli.guard import guarded, invocation
from chrysalis.cli.options import (
    BaseUrlOpt,
    BudgetOpt,
    DebugOpt,
    JsonArrayOpt,
    JsonEventsOpt,
    JudgeOpt,
    LevelOpt,
    ModelOpt,
    ModeOpt,
    PriorityOpt,
    StepsOpt,
    TimeoutOpt,
    UnsafeOpt,
    VotingOpt,
    WorkspaceOpt,
    YesOpt,
    config_flags,
)

__all__ = ["register", "sessions_app"]

sessions_app = typer.Typer(
    help="Conversations that carry over: list them, export one.", add_completion=False, invoke_without_command=True
)


def register(app: typer.Typer) -> None:
    """Add ``fix``, ``run``, ``decompose``, ``stats`` and ``undo`` to ``app``, in that order."""
    app.command()(fix)
    app.command()(run)
    app.command()(decompose)
    app.command()(stats)
    app.command()(undo)


def fix(
    test: Annotated[
        str | None, typer.Option("--test", help="The test command (default: test_command, or detected).")
    ] = None,
    samples: Annotated[
        int, typer.Option("--samples", help="Candidate patches in the first round (doubling after).")
    ] = 10,
    max_samples: Annotated[int, typer.Option("--max-samples", help="Most candidate patches in all.")] = 40,
    forms: Annotated[
        str | None,
        typer.Option("--forms", help="Edit forms in turn: line, function, diff (default line,function,line)."),
    ] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    priority: PriorityOpt = None,
    voting: VotingOpt = None,
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    json_output: JsonEventsOpt = False,
) -> None:
    """Make the failing tests pass: localise, sample many patches, keep those the tests pass, vote, apply."""
    from chrysalis.cli.fix_cmd import fix_command

    flags = config_flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        voting=voting,
        budget=budget,
        timeout=timeout,
        workspace=workspace,
        yes=yes,
    )
    raise typer.Exit(
        guarded(
            lambda: fix_command(
                flags, test=test, samples=samples, max_samples=max_samples, json_output=json_output, forms=forms
            )
        )
    )


def run(
    task: Annotated[str, typer.Argument(help="What the agent should do.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    priority: PriorityOpt = None,
    voting: VotingOpt = None,
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    max_steps: StepsOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    judge: JudgeOpt = None,
    unsafe_no_sandbox: UnsafeOpt = False,
    json_output: JsonEventsOpt = False,
    durable: Annotated[
        bool, typer.Option("--durable", help="Record every step; a crash or Ctrl-C can be resumed.")
    ] = False,
    continue_: Annotated[
        bool, typer.Option("--continue", "-c", help="Go on with this workspace's last session (its conversation).")
    ] = False,
    resume: Annotated[str | None, typer.Option("--resume", help="Go on with session ID (chrysalis sessions).")] = None,
    fork: Annotated[
        str | None, typer.Option("--fork", help="Start a new session from a copy of session ID's conversation.")
    ] = None,
    subscribe: Annotated[
        list[str] | None,
        typer.Option(
            "--subscribe",
            metavar="TARGET",
            help="Show this file, glob or memory:QUERY fresh at every task of the session (repeatable).",
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Run one task and stream what the agent does. Exit 0 done, 1 failed, 2 usage, 3 refused, 130 interrupted."""
    from chrysalis.cli.conversation import ConversationFlags
    from chrysalis.cli.daemon.client import run_through_daemon
    from chrysalis.config import chrysalis_home

    conversation = ConversationFlags(
        continue_latest=continue_, resume=resume, fork=fork, subscribe=tuple(subscribe or ())
    )
    if durable and (conversation.given or conversation.subscribe):
        raise typer.Exit(guarded(conversation.refuse_durable, json_output=json_output))
    flags = config_flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        voting=voting,
        budget=budget,
        timeout=timeout,
        max_steps=max_steps,
        workspace=workspace,
        yes=yes,
        judge=judge,
        unsafe_no_sandbox=unsafe_no_sandbox or None,
    )
    if durable:
        from dataclasses import replace

        from chrysalis.cli.queue_cmd import durable_run_command

        queued = replace(flags, judge=None)  # a durable run takes no --judge
        raise typer.Exit(guarded(lambda: durable_run_command(task, queued, json_output=json_output)))
    warm = run_through_daemon(invocation.argv, chrysalis_home()) if invocation.argv else None
    if warm is not None:
        raise typer.Exit(warm)
    from chrysalis.cli.run_cmd import run_command

    invocation.debug = invocation.debug or debug
    command = partial(run_command, task, flags, json_output=json_output, conversation=conversation)
    raise typer.Exit(guarded(command, json_output=json_output))


def decompose(
    task: Annotated[str, typer.Argument(help="What to do; it is split into a plan tree of sub-agent tasks.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    priority: PriorityOpt = None,
    voting: VotingOpt = None,
    budget: BudgetOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    json_output: JsonEventsOpt = False,
) -> None:
    """Split a task into a plan (voting on each split), run its leaves with sub-agents, merge their answers."""
    from chrysalis.cli.decompose_cmd import decompose_command

    flags = config_flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        voting=voting,
        budget=budget,
        workspace=workspace,
        yes=yes,
    )
    raise typer.Exit(guarded(lambda: decompose_command(task, flags, json_output=json_output), json_output=json_output))


def stats() -> None:
    """Summarise the eval store: success, time, cost and tokens per profile, task type and model."""
    from chrysalis.cli.misc_cmds import stats_command

    raise typer.Exit(guarded(stats_command))


def undo(
    workspace: WorkspaceOpt = None,
    run_id: Annotated[str | None, typer.Option("--run", help="The run to undo (default: the latest).")] = None,
    list_only: Annotated[
        bool,
        typer.Option(
            "--list",
            help="Show the tree undo would restore (the run, the runs it started, files each); change nothing.",
        ),
    ] = False,
) -> None:
    """Restore the files the latest run (or --run ID) changed in this workspace."""
    from chrysalis.cli.undo_cmd import undo_command

    raise typer.Exit(guarded(lambda: undo_command(config_flags(workspace=workspace), run_id, list_only=list_only)))


@sessions_app.callback()
def sessions(
    ctx: typer.Context,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="Only this folder's sessions.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="The most recent N sessions.")] = 20,
    json_output: JsonArrayOpt = False,
) -> None:
    """List the sessions, the most recently used first: id, workspace, first task, steps, cost, updated."""
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.sessions_cmd import sessions_command

    raise typer.Exit(guarded(lambda: sessions_command(workspace, limit, json_output=json_output)))


@sessions_app.command("export")
def sessions_export(
    session_id: Annotated[str, typer.Argument(help="The session's id (or the start of it).")],
    fmt: Annotated[str, typer.Option("--format", help="markdown | json.")] = "markdown",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file (default: print).")] = None,
) -> None:
    """Write a session's conversation as Markdown (to read) or JSON (its stored messages, to process)."""
    from chrysalis.cli.sessions_cmd import export_command

    raise typer.Exit(guarded(lambda: export_command(session_id, fmt, output)))
