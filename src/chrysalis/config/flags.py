"""``SettingFlags``: the settings given on the command line (or as an API's arguments), before they are checked.

Each field is a raw value as given (a flag's text, or a typed value from Python), or ``None`` when not
given; ``load_settings`` checks them with the table's parsers, so a bad flag gets the same kind of message
as a bad config line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from chrysalis.config.settings import KEYS
from chrysalis.errors import ConfigError

__all__ = ["SettingFlags"]


@dataclass(frozen=True, kw_only=True)
class SettingFlags:
    """One optional field per setting (``settings.py``), in the same order; ``None`` means not given."""

    model: str | None = None
    auto_models: str | Sequence[str] | None = None
    base_url: str | None = None
    priority: str | None = None
    voting: str | None = None
    prices: str | Mapping[str, Mapping[str, float]] | None = None
    mode: str | None = None
    level: int | str | None = None
    yes: bool | str | None = None
    permissions: str | Mapping[str, Sequence[str]] | None = None
    protect_tests: bool | str | None = None
    sandbox_network: bool | str | None = None
    unsafe_no_sandbox: bool | str | None = None
    judge: str | None = None
    budget: float | str | None = None
    timeout: float | str | None = None
    max_steps: int | str | None = None
    workspace: Path | str | None = None
    test_command: str | None = None
    profile: str | None = None
    compact_at: float | str | None = None
    memory_tokens: int | str | None = None
    subscription_chars: int | str | None = None
    embeddings: str | None = None
    daemon: bool | str | None = None
    database_url: str | None = None
    telemetry: str | None = None

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> SettingFlags:
        """Flags from a mapping of setting names (an API's keyword arguments, a queued run's options).

        A ``None`` value is a flag not given.

        Raises:
            ConfigError: a name that is no setting (the message lists the settings).
        """
        unknown = [key for key in values if key not in KEYS]
        if unknown:
            raise ConfigError(f"unknown setting {unknown[0]!r}. Allowed: {', '.join(KEYS)}.")
        return cls(**values)

    def given(self) -> dict[str, Any]:
        """The flags given, by name, in the table's order."""
        return {item.name: value for item in fields(self) if (value := getattr(self, item.name)) is not None}

    def as_options(self) -> dict[str, Any]:
        """The flags given, as JSON values (a queued run keeps them so; ``from_mapping`` reads them back)."""
        return {key: str(value) if isinstance(value, Path) else value for key, value in self.given().items()}

    def overridden_by(self, other: SettingFlags) -> SettingFlags:
        """These flags with each one ``other`` gives put in their place."""
        return replace(self, **other.given())
