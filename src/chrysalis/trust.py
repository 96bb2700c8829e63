"""Trusted folders: a repository's own config cannot widen what the agent may do until you trust it.

A cloned repository can ship ``.chrysalis/config.toml``. Until the user runs ``chrysalis trust`` in
that folder (recorded as ``trusted_folders`` in ``$CHRYSALIS_HOME/config.toml``, like Codex CLI's
trusted projects), the keys that would widen the agent's powers or send its data elsewhere are
ignored with a warning that names them; keys that only narrow (a lower level, deny and ask rules)
apply as always (``chrysalis.config.untrusted`` decides which). A trusted folder covers its subfolders.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from chrysalis.errors import ConfigError

__all__ = [
    "TRUST_KEY",
    "add_trusted",
    "is_trusted",
    "read_trusted",
    "remove_trusted",
    "trusted_folders",
]

TRUST_KEY = "trusted_folders"
"""The user-config key listing trusted folders (absolute paths); read from no other file."""


def is_trusted(folder: Path, trusted: list[Path]) -> bool:
    """Whether ``folder`` is one of ``trusted`` or inside one."""
    folder = folder.resolve()
    return any(folder == t or t in folder.parents for t in trusted)


def trusted_folders(value: Any, source: str) -> list[Path]:
    """The ``trusted_folders`` list of the user config, as absolute paths.

    Raises:
        ConfigError: not a list of absolute paths (the message names ``source``).
    """
    if not isinstance(value, list) or not all(isinstance(v, str) and Path(v).is_absolute() for v in value):
        raise ConfigError(f'{source}: {TRUST_KEY} must be a list of absolute folder paths, e.g. ["/home/me/project"]')
    return [Path(v) for v in value]


def add_trusted(user_config: Path, folder: Path) -> bool:
    """Record ``folder`` as trusted in ``user_config``; False if it already was."""
    current = read_trusted(user_config)
    folder = folder.resolve()
    if folder in current:
        return False
    _write(user_config, [*current, folder])
    return True


def remove_trusted(user_config: Path, folder: Path) -> bool:
    """Forget ``folder``; False if it was not trusted."""
    current = read_trusted(user_config)
    folder = folder.resolve()
    if folder not in current:
        return False
    _write(user_config, [f for f in current if f != folder])
    return True


def read_trusted(user_config: Path) -> list[Path]:
    """The trusted folders recorded in ``user_config`` (none when it does not exist)."""
    if not user_config.is_file():
        return []
    data = tomllib.loads(user_config.read_text(encoding="utf-8"))
    return trusted_folders(data.get(TRUST_KEY, []), str(user_config))


_ASSIGNMENT = re.compile(rf"^[ \t]*{TRUST_KEY}[ \t]*=[ \t]*\[.*?\][ \t]*\n?", re.MULTILINE | re.DOTALL)


def _write(user_config: Path, folders: list[Path]) -> None:
    """Rewrite only the ``trusted_folders`` line, keeping the rest of the file (and its comments) as it was.

    The line goes before the first table, where a top-level key must be in TOML.
    """
    line = f"{TRUST_KEY} = [{', '.join(json.dumps(str(f)) for f in folders)}]\n"
    text = user_config.read_text(encoding="utf-8") if user_config.is_file() else ""
    if _ASSIGNMENT.search(text):
        text = _ASSIGNMENT.sub(lambda _m: line, text, count=1)
    else:
        table = re.search(r"^[ \t]*\[", text, flags=re.MULTILINE)
        at = table.start() if table else len(text)
        before = text[:at] if not text[:at] or text[:at].endswith("\n") else text[:at] + "\n"
        text = before + line + text[at:]
    tomllib.loads(text)  # never leave a file that does not parse
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(text, encoding="utf-8")
