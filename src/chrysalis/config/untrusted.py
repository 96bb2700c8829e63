"""What the config of a folder the user has not trusted may set (``chrysalis.trust`` keeps the trusted list).

A cloned repository can ship ``.chrysalis/config.toml``. Until the user runs ``chrysalis trust`` there, its
security settings may only narrow what the user's own config allows, by the same rule a sub-agent or an
HTTP request is held to (``chrysalis.config.narrowing``): a lower level, a narrower mode, a protection
turned on, ``ask`` and ``deny`` rules. It may not set where prompts, runs or spans go, or pick the
embedder, at all. Every key it may not set is ignored, and named in a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from chrysalis.config.narrowing import NARROWS
from chrysalis.config.settings import TABLE

__all__ = ["ELSEWHERE", "withhold_untrusted"]

ELSEWHERE = ("base_url", "database_url", "telemetry", "embeddings")
"""Keys an untrusted folder may not set at all: where prompts, runs and approvals go, sending the runs' spans
(tasks, tools) out, and choosing the embedder (an endpoint would be sent every memory; the embedded model
costs a model load)."""
_HARMLESS: Mapping[str, tuple[Any, ...]] = {"embeddings": ("lexical",)}
"""Values of ``ELSEWHERE`` keys that send nothing anywhere (besides false and empty ones): the default embedder."""

_Raw = Mapping[str, tuple[Any, str]]
"""Settings as read: key -> (value, where it came from)."""


def withhold_untrusted(project: _Raw, baseline: Mapping[str, Any]) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """What an untrusted project config may set, and a note for each key it may not.

    ``baseline`` holds the typed value of every key in ``NARROWS`` without the project config (the user's
    config, or the default): the project may narrow each, never widen it. A value that is not valid stays,
    so that loading reports it as a bad value.
    """
    kept = dict(project)
    withheld: list[str] = []
    for key in ELSEWHERE:
        if key in kept and not _harmless(key, kept[key][0]):
            withheld.append(f"{key} ({kept.pop(key)[1]})")
    for key, narrows in NARROWS.items():
        if key in kept and not _narrows(key, kept[key][0], baseline[key], narrows):
            value, source = kept.pop(key)
            withheld.append(f"{key} = {_as_toml(value)} ({source})")
    if "permissions" in kept:
        value, source = kept["permissions"]
        if isinstance(value, dict) and value.get("allow"):
            kept["permissions"] = ({k: v for k, v in value.items() if k != "allow"}, source)
            withheld.append(f"permissions.allow ({source})")
    return kept, withheld


def _narrows(key: str, raw: Any, baseline: Any, narrows: Callable[[Any, Any], bool]) -> bool:
    """Whether the project's raw ``raw`` for ``key`` narrows ``baseline``; a value that does not parse does."""
    try:
        value = TABLE[key].coerce(raw)
    except (TypeError, ValueError):
        return True  # kept, so that loading reports it with its file and line
    return narrows(value, baseline)


def _as_toml(value: Any) -> str:
    """``value`` as the config file spells it (``true``, ``"code"``), so the warning quotes the file."""
    return json.dumps(value) if isinstance(value, bool | int | float | str) else repr(value)


def _harmless(key: str, value: Any) -> bool:
    """Whether setting ``key`` to ``value`` sends nothing anywhere: false, empty, or one of ``_HARMLESS``."""
    shown = value.strip().lower() if isinstance(value, str) else value
    return shown in (False, None, "", "false", "0", "off", *_HARMLESS.get(key, ()))
