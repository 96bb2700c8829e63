"""Parsers that turn a raw value (a TOML value, an environment string or a flag) into a setting's typed form.

Each raises ``ValueError`` or ``TypeError`` for a value it refuses, with a short reason or none; the
loader (``load.py``) turns that into a ``ConfigError`` naming where the value came from and what is allowed.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from chrysalis.config.choices import MIN_SUBSCRIPTION_CHARS, PERMISSION_ACTIONS

__all__ = [
    "OneOf",
    "Rules",
    "as_bool",
    "as_command",
    "as_database_url",
    "as_embeddings",
    "as_fraction",
    "as_int_in",
    "as_judge",
    "as_model",
    "as_model_list",
    "as_optional_float",
    "as_prices",
    "as_priority",
    "as_rules",
    "as_subscription_chars",
    "as_url",
    "as_workspace",
    "split_rule",
    "without_password",
]

S = TypeVar("S", bound=str)
Rules = tuple[tuple[str, str, str], ...]
"""Permission rules as (action, rule, source)."""
_RULE_SYNTAX = re.compile(r"^\s*(?P<tool>[A-Za-z_][\w.-]*|\*)\s*(?:\((?P<spec>.*)\))?\s*$", re.DOTALL)
_HOST_NAME = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?$")
_URL_PASSWORD = re.compile(r"(://[^/:@\s]*:)[^/@\s]*@")
"""The password in ``scheme://user:password@host``: never echoed in an error message."""


def split_rule(text: Any) -> tuple[str, str | None]:
    """A permission rule ``TOOL`` or ``TOOL(SPECIFIER)`` as (tool, specifier); ``chrysalis.tools.rules`` applies it.

    Raises:
        ValueError: not that shape, or an empty specifier.
    """
    match = _RULE_SYNTAX.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not a rule: write TOOL or TOOL(SPECIFIER), e.g. 'shell(pytest:*)'")
    spec = match["spec"]
    if spec is not None and not spec.strip():
        raise ValueError(f"{text!r} has an empty specifier: drop the parentheses to match the whole tool")
    spec = spec.strip() if spec is not None else None
    if spec is not None and spec.startswith("domain:"):
        _check_domain(text, spec.removeprefix("domain:"))
    return match["tool"], spec


def _check_domain(text: str, domain: str) -> None:
    """A ``domain:`` specifier names one host (a name or an address), which also covers its subdomains.

    Raises:
        ValueError: anything else, with what to write instead (a URL, a port or a ``*`` are common slips).
    """
    if "://" in domain or "/" in domain:
        hint = "write only the host, e.g. 'web_fetch(domain:example.com)'"
    elif domain.startswith("*"):
        hint = "drop the '*': 'domain:example.com' already covers its subdomains"
    elif _HOST_NAME.match(domain) or _is_address(domain):
        return
    elif ":" in domain and _HOST_NAME.match(domain.rpartition(":")[0]):
        hint = "a domain rule covers every port: drop ':PORT'"
    else:
        hint = "a domain is a host name such as example.com, or an address such as 10.0.0.5 or ::1"
    raise ValueError(f"{text!r}: {domain!r} is not a domain: {hint}")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def without_password(text: str) -> str:
    """``text`` with the password of any ``scheme://user:password@host`` in it shown as ``***``."""
    return _URL_PASSWORD.sub(r"\1***@", text)


def as_bool(value: Any) -> bool:
    """``true``/``false`` as a TOML boolean, or 1/0, yes/no, on/off as text."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("")


def as_int_in(low: int, high: int | None) -> Callable[[Any], int]:
    """A parser of whole numbers from ``low`` to ``high`` (``None``: no upper bound)."""

    def convert(value: Any) -> int:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("")
        number = int(value)
        if number < low or (high is not None and number > high):
            raise ValueError("")
        return number

    return convert


def as_subscription_chars(value: Any) -> int:
    """0, or enough characters for the section's heading, one item and the cut marker."""
    number = as_int_in(0, None)(value)
    if 0 < number < MIN_SUBSCRIPTION_CHARS:
        raise ValueError("")
    return number


def as_fraction(low: float, high: float) -> Callable[[Any], float]:
    """A parser of numbers from ``low`` to ``high``."""

    def convert(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError("")
        number = float(value)
        if not low <= number <= high:
            raise ValueError("")
        return number

    return convert


def as_optional_float(minimum: float, *, strict: bool) -> Callable[[Any], float | None]:
    """A parser of numbers from ``minimum`` (excluded when ``strict``), or none/off/empty for no limit."""

    def convert(value: Any) -> float | None:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "off"):
            return None
        if isinstance(value, bool):
            raise ValueError("")
        number = float(value)
        if number < minimum or (strict and number == minimum):
            raise ValueError("")
        return number

    return convert


def as_model(value: Any) -> str:
    """``provider:name``, ``auto``, or a bare name (a model on the OpenAI-compatible server of ``base_url``)."""
    text = str(value).strip()
    if not text or text.startswith(":") or text.endswith(":"):
        raise ValueError("empty provider or name")
    return text


def as_judge(value: Any) -> str | None:
    """A model for the security judge, or ``off`` / an empty string for none."""
    text = str(value).strip()
    return None if text.lower() in ("", "off", "none", "false") else as_model(text)


def as_model_list(value: Any) -> tuple[str, ...]:
    """A TOML list, a list from Python, or a comma-separated string (environment); duplicates dropped."""
    if isinstance(value, str):
        entries: list[Any] = [part for part in value.split(",") if part.strip()]
    elif isinstance(value, list | tuple):
        entries = list(value)
    else:
        raise ValueError("not a list")
    models: list[str] = []
    for entry in entries:
        text = entry.strip() if isinstance(entry, str) else ""
        if not text or text.startswith(":") or text.endswith(":") or text == "auto":
            raise ValueError(f"entry {entry!r} is not a 'provider:name' model")
        if text not in models:
            models.append(text)
    return tuple(models)


def as_embeddings(value: Any) -> str:
    """``lexical``, ``local``, ``local:NAME``, ``provider:NAME``, or a bare name (checked against base_url later)."""
    text = value.strip() if isinstance(value, str) else ""
    if text.lower() in ("lexical", "local"):
        return text.lower()
    prefix, sep, name = text.partition(":")
    if not text or (sep and not (prefix.strip() and name.strip())):
        raise ValueError("empty provider or name")
    if prefix == "anthropic":
        raise ValueError("Anthropic has no embeddings endpoint")
    return text


def as_url(value: Any) -> str | None:
    """An http(s) URL without its trailing slash; empty for none."""
    text = str(value).strip()
    if not text:
        return None
    if not re.match(r"^https?://[^\s/]+", text):
        raise ValueError("")
    return text.rstrip("/")


def as_database_url(value: Any) -> str | None:
    """A ``sqlite://`` or ``postgresql://`` URL (with an optional ``+driver``); empty for none."""
    text = str(value).strip()
    if not text:
        return None
    if not re.match(r"^(sqlite|postgresql)(\+\w+)?://", text):
        raise ValueError("")
    return text


class OneOf(Generic[S]):
    """A parser of one of ``choices``, in any case; an entry with one lists the choices (``Entry.choices``)."""

    def __init__(self, choices: tuple[S, ...]) -> None:
        self.choices = choices

    def __call__(self, value: Any) -> S:
        """The choice ``value`` names; ``ValueError`` if none."""
        text = str(value).strip().lower()
        for choice in self.choices:
            if text == choice:
                return choice
        raise ValueError("")


def as_priority(value: Any) -> str:
    """A keyword or a sentence: anything but empty."""
    text = str(value).strip()
    if not text:
        raise ValueError("empty")
    return text


def as_command(value: Any) -> str | None:
    """A shell command; empty for none."""
    text = str(value).strip()
    return text or None


def as_prices(value: Any) -> dict[str, tuple[float, float]]:
    """``{model: {input = USD, output = USD}}`` per million tokens; a JSON string from the environment."""
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict):
        raise ValueError("not a table")
    prices: dict[str, tuple[float, float]] = {}
    for model, price in cast(dict[str, Any], value).items():
        if not isinstance(price, dict) or set(cast(dict[str, Any], price)) != {"input", "output"}:
            raise ValueError(f"{model!r} needs exactly 'input' and 'output'")
        pair = (float(price["input"]), float(price["output"]))
        if min(pair) < 0:
            raise ValueError(f"{model!r} has a negative price")
        prices[str(model)] = pair
    return prices


def as_rules(value: Any) -> Rules:
    """``{"allow": [...], "ask": [...], "deny": [...]}`` (a TOML table, or JSON from the environment) as rules.

    Each rule's source is left empty: the loader, which knows where the value came from, fills it in.
    """
    table = json.loads(value) if isinstance(value, str) else value
    if not isinstance(table, dict) or set(cast(dict[str, Any], table)) - set(PERMISSION_ACTIONS):
        raise ValueError("use the lists allow, ask and deny")
    rules: list[tuple[str, str, str]] = []
    for action, texts in cast(dict[str, Any], table).items():
        if not isinstance(texts, list):
            raise ValueError(f"{action} must be a list of rules")
        for text in texts:
            split_rule(text)
            rules.append((action, text, ""))
    return tuple(rules)


def as_workspace(value: Any) -> Path:
    """An existing folder, as an absolute path."""
    path = Path(str(value)).expanduser().resolve()
    if not path.is_dir():
        raise ValueError("no such folder")
    return path
