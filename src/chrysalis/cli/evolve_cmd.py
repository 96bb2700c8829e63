"""``chrysalis evolve``: learn lessons from failed runs, keep them only if a judge scores them better.

``--history`` lists the saved versions of the agent's lessons, ``--rollback N`` makes version N
current again (0 = no lessons). The REPL's ``/evolve`` runs the same thing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from rich.console import Console

    from chrysalis.agent.evolution import EvolutionResult, EvolveOptions
    from chrysalis.config import Settings
    from chrysalis.stores import Stores

__all__ = ["evolve_command", "render_result"]


def evolve_command(
    settings: Settings,
    options: EvolveOptions,
    console: Console,
    *,
    history: bool = False,
    rollback: int | None = None,
) -> int:
    """Run one evolution step, or list the saved versions (``history``), or make one current (``rollback``).

    The step runs on ``settings.model``; without ``options.priority`` it uses ``settings.priority``.
    Returns 0; a rollback to a version that does not exist is a ``UsageError`` naming ``--rollback``.
    """
    from chrysalis.agent import evolution
    from chrysalis.stores import Stores

    with Stores.open(settings.home) as stores:
        if history:
            _show_history(stores, console)
            return 0
        if rollback is not None:
            try:
                version = evolution.rollback(stores, rollback)
            except KeyError as exc:
                raise UsageError(f"--rollback: {exc.args[0]}") from exc
            console.print(f"lessons of version {rollback} are current again (saved as version {version})")
            return 0
        if options.priority is None:
            options = dataclasses.replace(options, priority=settings.priority)
        result = asyncio.run(
            evolution.evolve_agent(
                stores, options, model=_model(settings), progress=lambda line: console.print(f"[dim]{line}[/dim]")
            )
        )
    render_result(result, console)
    return 0


def _model(settings: Settings) -> str | Model:
    """The model by name, or built here when a base URL is set (a name alone would lose ``--base-url``)."""
    if settings.base_url is None:
        return settings.model
    from chrysalis.llm.providers import build_model

    return build_model(settings)


def _show_history(stores: Stores, console: Console) -> None:
    from chrysalis.agent import evolution

    versions = evolution.history(stores)
    if not versions:
        console.print("no lessons saved yet: `chrysalis evolve` learns them from failed runs")
    for version, _, ctx in versions:
        lessons = ctx.system.strip().replace("\n", " / ") or "(none)"
        console.print(f"v{version}: {lessons[:160]}")


def render_result(result: EvolutionResult, console: Console) -> None:
    """Say what was learned, or why nothing was."""
    if result.failures == 0:
        console.print("nothing to learn from yet: no failed runs are recorded (runs record themselves)")
        return
    current = result.current.score if result.current else 0.0
    for i, candidate in enumerate(result.candidates, 1):
        console.print(f"candidate {i}: {candidate.score:.3f} (current {current:.3f})")
    if result.kept is None:
        console.print(f"kept the current lessons: no candidate beat {current:.3f} ({result.calls} model calls)")
        return
    where = "not saved (dry run)" if result.version is None else f"saved as version {result.version}"
    console.print(f"[green]improved[/green] {current:.3f} → {result.kept.score:.3f}, {where}; lessons:")
    console.print(result.kept.lessons)
    if result.kept.tool_hints:
        console.print("tool hints:\n" + result.kept.tool_hints)
