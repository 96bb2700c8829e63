"""The shape of one entry of the settings table: each field of ``Settings`` (``settings.py``) carries one.

A field's name, type and default are the setting's; its ``Entry`` holds the rest: what the setting is
about, how a raw value becomes the typed one, what an error says is allowed, and a line of help. The
loaders, ``chrysalis config show`` and the REPL all read these, so a setting is added in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, field, replace
from typing import Any, Generic, Literal, TypeVar, get_args

from chrysalis.config.coerce import OneOf

__all__ = ["CONCERNS", "Concern", "Entry", "computed", "entry_of", "setting"]

T = TypeVar("T")
Concern = Literal["model choice", "security", "limits", "project", "prompt", "runtime"]
CONCERNS: tuple[Concern, ...] = get_args(Concern)
"""What a setting is about, in the order ``chrysalis config show`` lists them."""
_ENTRY = "chrysalis.config.entry"
"""The key of a ``Settings`` field's metadata that holds its entry."""


@dataclass(frozen=True, kw_only=True)
class Entry(Generic[T]):
    """Everything but the name, type and default of one setting."""

    concern: Concern
    """What the setting is about (``config show`` groups the settings by it)."""
    coerce: Callable[[Any], T]
    """Turns a raw value (TOML, an environment string, a flag) into the typed one; raises ``ValueError`` if bad."""
    help: str
    """What the setting does."""
    example: str
    """A value other than the default, as a user writes it in a file, a variable or a flag."""
    allowed: str = ""
    """What an error about a bad value says is allowed; "one of" the choices when left empty."""
    hint: str = ""
    """The values in brief for one-line help (``0..3``); the choices joined by ``|`` when left empty."""
    adds: bool = False
    """Every source adds to the value (permission rules) instead of replacing what a lower one set."""
    name: str = ""
    """The ``Settings`` field this entry belongs to (set by ``entry_of``)."""

    def __post_init__(self) -> None:
        if not self.allowed:
            if not self.choices:
                raise ValueError("an entry needs `allowed` unless its coerce is a OneOf, which says it")
            object.__setattr__(self, "allowed", "one of " + ", ".join(self.choices))
        if not self.hint:
            object.__setattr__(self, "hint", "|".join(self.choices) or "VALUE")

    @property
    def choices(self) -> tuple[str, ...]:
        """The values allowed, when they are a closed set (``mode``, ``profile``, ``telemetry``); else empty."""
        return self.coerce.choices if isinstance(self.coerce, OneOf) else ()

    @property
    def env(self) -> str:
        """The environment variable that sets it: ``CHRYSALIS_`` and the name in capitals."""
        return "CHRYSALIS_" + self.name.upper()

    @property
    def flag(self) -> str:
        """How a flag that sets it is spelled: ``--max-steps``."""
        return "--" + self.name.replace("_", "-")


def setting(default: T, entry: Entry[T]) -> T:
    """A ``Settings`` field with ``default`` and the rest of its ``entry``."""
    made: T = field(default=default, metadata={_ENTRY: entry})
    return made


def computed(factory: Callable[[], T], entry: Entry[T]) -> T:
    """A ``Settings`` field whose default ``factory`` makes (a mutable value, or one read when Settings is made)."""
    made: T = field(default_factory=factory, metadata={_ENTRY: entry})
    return made


def entry_of(item: Field[Any]) -> Entry[Any] | None:
    """The entry of a ``Settings`` field, named after it; ``None`` for a field that is not a setting."""
    entry: Entry[Any] | None = item.metadata.get(_ENTRY)
    return None if entry is None else replace(entry, name=item.name)
