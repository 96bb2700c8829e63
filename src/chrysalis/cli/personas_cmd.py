"""``chrysalis personas list [--json]``: who would sit on the council here, and where each came from.

The answer to "is my persona file read, and does it replace the built-in?": a persona from a file shows
its path as the source. A malformed file stops the command (exit 2, naming the file and key) before
anything is printed, as it stops a council. A workspace that is not trusted adds no persona; a warning
names its files and the ``chrysalis trust`` that would let them in.
"""

from __future__ import annotations

import json
from pathlib import Path

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.council import Persona, load_personas, workspace_persona_files
from chrysalis.errors import EXIT_OK
from chrysalis.trust import is_trusted, read_trusted

__all__ = ["personas_list_command"]


def personas_list_command(flags: SettingFlags, *, json_output: bool) -> int:
    """Print each persona: name, priority, mode and source; one JSON array with ``json_output``.

    Raises:
        ConfigError: a persona file or the config is malformed (exit 2).
    """
    settings = load_settings(flags)
    trusted = is_trusted(settings.workspace, read_trusted(settings.home / "config.toml"))
    personas = load_personas(settings.home, settings.workspace, trusted)
    print_warnings(_withheld(settings.workspace, trusted))
    if json_output:
        print(json.dumps([_as_json(p) for p in personas], indent=2))
        return EXIT_OK
    width = max(len(p.name) for p in personas)
    modes = max(len(p.mode) for p in personas)
    for persona in personas:
        print(f"{persona.name:<{width}}  {persona.priority:.2f}  {persona.mode:<{modes}}  {persona.source}")
    return EXIT_OK


def _as_json(persona: Persona) -> dict[str, object]:
    return {"name": persona.name, "priority": persona.priority, "mode": persona.mode, "source": persona.source}


def _withheld(workspace: Path, trusted: bool) -> tuple[str, ...]:
    files = () if trusted else workspace_persona_files(workspace)
    if not files:
        return ()
    names = ", ".join(path.name for path in files)
    return (
        f"{workspace} is not a trusted folder, so its personas ({names}) were not loaded. "
        f"Run `chrysalis trust {workspace}` if you trust this repository.",
    )
