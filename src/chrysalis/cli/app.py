"""The ``chrysalis`` command: a thin typer app whose commands parse flags and hand off to one module per command.

This module is the table of contents: the app, its root options (no command starts the REPL), and every
command and group in the order ``chrysalis --help`` lists them. The commands are declared by area in
``chrysalis.cli.commands``, with the options they share in ``chrysalis.cli.options``; how a command
ends (message, exit code) is ``chrysalis.cli.guard``.

Everything heavy (pydantic-ai, model runtimes, the stores) is imported inside the command
functions, so ``chrysalis --help`` and shell completion (``--install-completion``, which typer's
completion protocol answers from the app alone) stay fast. ``approve ID`` and ``approvals`` are handed to
their command without typer building the app (``chrysalis.cli.direct``): a person and a waiting run wait on
``approve``. User mistakes become a message and an exit code (``chrysalis.errors``), never a traceback.
"""

from __future__ import annotations

import os
import sys

import typer

from chrysalis.cli.commands import council, evolve, knowledge, provenance, run, runtime, schedule, serve, setup
from chrysalis.cli.guard import AlreadyShown, guarded, invocation
from chrysalis.cli.options import (
    BaseUrlOpt,
    DebugOpt,
    JudgeOpt,
    LevelOpt,
    ModelOpt,
    ModeOpt,
    UnsafeOpt,
    WorkspaceOpt,
    YesOpt,
    config_flags,
)

__all__ = ["AlreadyShown", "app", "main"]

app = typer.Typer(
    name="chrysalis",
    help="Chrysalis Forge: a local-first, self-improving, safety-gated coding agent.",
    no_args_is_help=False,
    invoke_without_command=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# The commands, then the groups: the order `chrysalis --help` lists them in.
run.register(app)  # fix, run, decompose, stats, undo
evolve.register(app)  # compile, evolve
setup.register(app)  # doctor, trust
runtime.register(app)  # approvals, approve, submit, worker, queue, show, cancel
serve.register(app)  # serve, ui
council.register(app)  # council
app.add_typer(setup.config_app, name="config")
app.add_typer(setup.daemon_app, name="daemon")
app.add_typer(runtime.keys_app, name="keys")
app.add_typer(schedule.schedule_app, name="schedule")
app.add_typer(provenance.provenance_app, name="provenance")
app.add_typer(setup.models_app, name="models")
app.add_typer(knowledge.skills_app, name="skills")
app.add_typer(evolve.archive_app, name="archive")
app.add_typer(run.sessions_app, name="sessions")
app.add_typer(knowledge.memory_app, name="memory")
app.add_typer(knowledge.kg_app, name="kg")
app.add_typer(setup.mcp_app, name="mcp")
app.add_typer(council.personas_app, name="personas")


@app.callback()
def root(
    ctx: typer.Context,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    judge: JudgeOpt = None,
    unsafe_no_sandbox: UnsafeOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Start the interactive agent (REPL) when no command is given."""
    invocation.debug = debug or _debug_from_env()
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.repl import repl_command

    flags = config_flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        workspace=workspace,
        yes=yes,
        judge=judge,
        unsafe_no_sandbox=unsafe_no_sandbox or None,
    )
    raise typer.Exit(guarded(lambda: repl_command(flags)))


def _debug_from_env() -> bool:
    return os.environ.get("CHRYSALIS_DEBUG", "").strip() in ("1", "true", "yes")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    invocation.argv[:] = argv if argv is not None else sys.argv[1:]
    from chrysalis.cli.completion import is_completion_request
    from chrysalis.cli.direct import direct

    if is_completion_request(invocation.argv):  # typer's own flags take no shell name (chrysalis.cli.completion)
        from chrysalis.cli.completion import completion_command

        raise SystemExit(guarded(lambda: completion_command(invocation.argv)))
    command = direct(invocation.argv)
    if command is not None:  # `approve ID`, `approvals`: typer would build every command first (chrysalis.cli.direct)
        invocation.debug = _debug_from_env()
        raise SystemExit(guarded(command))
    from chrysalis.cli.argv import with_optional_values

    app(args=with_optional_values(list(invocation.argv)), prog_name="chrysalis")
