"""``chrysalis config show``: every effective setting and the source that set it, grouped by concern."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from chrysalis.cli.render import print_warnings
from chrysalis.config import CONCERNS, ENTRIES, SettingFlags, Settings, load_settings

__all__ = ["show_config"]


def show_config(flags: SettingFlags, console: Console | None = None) -> int:
    """Print a table of key, value, source (flag, env var, file:line or default) and concern."""
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    table = Table(title="chrysalis settings", show_lines=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    table.add_column("from", style="dim", overflow="fold")  # a path is shown whole, never cut with "…"
    table.add_column("concern", style="dim")
    for concern in CONCERNS:
        for n, entry in enumerate(e for e in ENTRIES if e.concern == concern):
            table.add_row(*_row(settings, entry.name), concern if n == 0 else "")
        table.add_section()
    for name in ("home", "warnings"):  # not settings a file may set, but what the user should see with them
        table.add_row(*_row(settings, name), "")
    (console or Console()).print(table)
    return 0


def _row(settings: Settings, name: str) -> tuple[str, str, str]:
    return name, _shown(getattr(settings, name)), settings.sources.get(name, "default")


def _shown(value: object) -> str:
    """A value as text: lists comma-separated, a permission rule as its action and rule (the source is beside it)."""
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ", ".join(" ".join(item[:2]) if isinstance(item, tuple) else str(item) for item in value)
    return str(value)
