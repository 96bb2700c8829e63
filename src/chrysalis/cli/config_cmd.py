"""``chrysalis config show``: every effective setting and the source that set it."""

from __future__ import annotations

from dataclasses import fields

from rich.console import Console
from rich.table import Table

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, load_settings

__all__ = ["show_config"]


def show_config(flags: SettingFlags, console: Console | None = None) -> int:
    """Print a table of key, value and source (flag, env var, file:line or default)."""
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    table = Table(title="chrysalis settings", show_lines=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    table.add_column("from", style="dim")
    for item in fields(settings):
        if item.name == "sources":
            continue
        value = getattr(settings, item.name)
        shown = ", ".join(value) if isinstance(value, tuple) else "" if value is None else str(value)
        table.add_row(item.name, shown, settings.sources.get(item.name, "default"))
    (console or Console()).print(table)
    return 0
