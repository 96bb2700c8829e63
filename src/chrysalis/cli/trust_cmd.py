"""``chrysalis trust [FOLDER]``: let a repository's own config widen what the agent may do there."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rich.console import Console

from chrysalis.config import chrysalis_home
from chrysalis.errors import EXIT_OK, ConfigError, UsageError
from chrysalis.trust import add_trusted, read_trusted, remove_trusted

__all__ = ["trust_command"]


def trust_command(folder: Path | None, *, remove: bool, show: bool) -> int:
    """Trust ``folder`` (default: here), forget it with ``remove``, or list the trusted folders with ``show``."""
    user_config = chrysalis_home() / "config.toml"
    console = Console(highlight=False, soft_wrap=True)
    if show:
        folders = _listed(user_config)
        console.print("\n".join(str(f) for f in folders) if folders else "No folder is trusted.")
        return EXIT_OK
    target = (folder or Path.cwd()).expanduser().resolve()
    if not target.is_dir():
        raise UsageError(f"{target} is not a folder: give the repository's folder, e.g. chrysalis trust ~/src/project.")
    try:
        changed = remove_trusted(user_config, target) if remove else add_trusted(user_config, target)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{user_config}: not valid TOML ({exc}); fix it before changing trusted folders.") from exc
    if remove:
        console.print(f"{target} is no longer trusted." if changed else f"{target} was not trusted.")
    else:
        console.print(
            f"Trusted {target}: its .chrysalis/config.toml may now set the level, yes, base_url and allow rules "
            f"(recorded in {user_config})."
            if changed
            else f"{target} is already trusted."
        )
    return EXIT_OK


def _listed(user_config: Path) -> list[Path]:
    try:
        return read_trusted(user_config)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{user_config}: not valid TOML ({exc}).") from exc
