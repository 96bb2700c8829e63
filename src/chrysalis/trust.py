"""Trusted folders: a repository's own config cannot widen what the agent may do until you trust it.

A cloned repository can ship ``.chrysalis/config.toml``. Until the user runs ``chrysalis trust`` in
that folder (recorded as ``trusted_folders`` in ``$CHRYSALIS_HOME/config.toml``, like Codex CLI's
trusted projects), the keys that would widen the agent's powers or send its data elsewhere are
ignored with a warning that names them; keys that only narrow (a lower level, deny and ask rules)
apply as always. A trusted folder covers its subfolders.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
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
    "withhold_untrusted",
]

TRUST_KEY = "trusted_folders"
"""The user-config key listing trusted folders (absolute paths); read from no other file."""
_WIDENING = ("yes", "base_url", "database_url", "sandbox_network", "unsafe_no_sandbox", "telemetry", "embeddings")
"""Keys an untrusted folder may not set at all: auto-approval, where prompts (or runs and approvals) go, network,
no sandbox, sending the runs' spans (tasks, tools) out (telemetry), and choosing the embedder (an endpoint would be
sent every memory; the embedded model costs a model load)."""
_HARMLESS: dict[str, tuple[Any, ...]] = {"embeddings": ("lexical",)}
"""Values of widening keys that widen nothing (besides false and empty ones): the default embedder."""
_HIGHEST_LEVEL = 3


def is_trusted(folder: Path, trusted: list[Path]) -> bool:
    """Whether ``folder`` is one of ``trusted`` or inside one."""
    folder = folder.resolve()
    return any(folder == t or t in folder.parents for t in trusted)


def withhold_untrusted(
    project: Mapping[str, tuple[Any, str]], baseline_level: int
) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """What an untrusted project config may set, and a note for each key it may not.

    ``baseline_level`` is the level without the project config: a project may lower it, not raise it.
    """
    kept = dict(project)
    withheld: list[str] = []
    for key in _WIDENING:
        if key in kept and not _harmless(key, kept[key][0]):
            withheld.append(f"{key} ({kept.pop(key)[1]})")
    if "level" in kept and baseline_level < _as_level(kept["level"][0]) <= _HIGHEST_LEVEL:
        value, source = kept.pop("level")  # a bad value stays, so that it is reported as one
        withheld.append(f"level = {value!r} ({source})")
    if "permissions" in kept:
        value, source = kept["permissions"]
        if isinstance(value, dict) and value.get("allow"):
            kept["permissions"] = ({k: v for k, v in value.items() if k != "allow"}, source)
            withheld.append(f"permissions.allow ({source})")
    return kept, withheld


def _harmless(key: str, value: Any) -> bool:
    """Whether setting ``key`` to ``value`` widens nothing: false, empty, or one of the key's ``_HARMLESS`` values."""
    shown = value.strip().lower() if isinstance(value, str) else value
    return shown in (False, None, "false", "0", *_HARMLESS.get(key, ()))


def _as_level(value: Any) -> int:
    if isinstance(value, bool):
        return -1
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


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
