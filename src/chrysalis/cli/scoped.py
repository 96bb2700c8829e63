"""What ``chrysalis memory`` and ``chrysalis kg`` share: their settings, their console, and ``--scope``.

Both stores keep their rows per scope (this workspace's, or ``global``); a listing picks one or all.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import UsageError
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope

__all__ = ["SCOPES", "check_scope", "listing_console", "scopes_of", "settings_for"]

SCOPES = ("workspace", "global", "all")


def settings_for(flags: SettingFlags) -> Settings:
    """The settings of ``flags``, their warnings shown."""
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    return settings


def listing_console() -> Console:
    """Stdout for listings: no highlighting of numbers or paths in what the stores hold."""
    return Console(highlight=False, soft_wrap=True)


def check_scope(scope: str) -> None:
    """Check ``--scope``.

    Raises:
        UsageError: ``scope`` is not one of ``SCOPES``.
    """
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r} is not a scope: use one of {', '.join(SCOPES)}.")


def scopes_of(scope: str, workspace: Path) -> list[str] | None:
    """The stored scopes ``--scope`` names for ``workspace`` (None: all of them)."""
    return {"workspace": [workspace_scope(workspace)], "global": [GLOBAL_SCOPE], "all": None}[scope]
