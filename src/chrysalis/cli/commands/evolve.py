"""Self-improvement: ``compile`` (a module's prompts, by MAP-Elites), ``evolve`` (the agent's lessons), ``archive``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import BaseUrlOpt, ModelOpt, PriorityOpt, config_flags

__all__ = ["archive_app", "register"]

archive_app = typer.Typer(help="Inspect the archives that compile makes.", add_completion=False)


def register(app: typer.Typer) -> None:
    """Add ``compile`` and ``evolve`` to ``app``, in that order."""
    app.command("compile")(compile_)
    app.command()(evolve)


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

    raise typer.Exit(guarded(command))


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
        settings = load_settings(config_flags(model=model, base_url=base_url, priority=priority))
        return evolve_command(settings, options, Console(), history=history, rollback=rollback)

    raise typer.Exit(guarded(command))


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

    raise typer.Exit(guarded(lambda: archive_show_command(name, version, png, chrysalis_home(), Console())))
