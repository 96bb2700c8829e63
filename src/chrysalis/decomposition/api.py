"""``chrysalis.decompose(task, ...)``: geometric decomposition from Python, with the CLI's settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.agent.session import AgentSession
from chrysalis.agent.toolset import Approver
from chrysalis.config import SettingFlags, library_flags, load_settings
from chrysalis.decomposition.run import Decomposer, DecompositionResult
from chrysalis.events import Event

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["decompose", "decompose_async"]


async def decompose_async(
    task: str,
    *,
    model: str | Model | None = None,
    priority: str | None = None,
    workspace: str | Path | None = None,
    level: int | None = None,
    mode: str | None = None,
    yes: bool | None = None,
    budget: float | None = None,
    base_url: str | None = None,
    on_event: Callable[[Event], None] | None = None,
    approver: Approver | None = None,
) -> DecompositionResult:
    """Split ``task`` into a plan tree, run its leaves with sub-agents and merge their answers.

    Settings not given come from ``chrysalis.configure``, the environment and config files, as for
    ``chrysalis run``; ``priority`` sets the decomposition limits and the voting level.

    Raises:
        ValueError: ``task`` is empty.
        ChrysalisError: a bad setting (``ConfigError``, exit code 2) or a model that cannot be reached.
    """
    if not task.strip():
        raise ValueError("decompose needs a task: say what to do, e.g. decompose('add type hints to utils.py')")
    flags = SettingFlags(
        model=model if isinstance(model, str) else None,
        priority=priority,
        workspace=workspace,
        level=level,
        mode=mode,
        yes=yes,
        budget=budget,
        base_url=base_url,
    )
    settings = load_settings(library_flags(flags))
    session = AgentSession(
        settings, model=None if isinstance(model, str) else model, on_event=on_event, approver=approver
    )
    try:
        return await Decomposer(session).run(task)
    finally:
        session.close()


def decompose(task: str, **options: Any) -> DecompositionResult:
    """``decompose_async`` for code that is not async (see it for the options)."""
    return asyncio.run(decompose_async(task, **options))
