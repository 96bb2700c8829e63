"""``chrysalis.configure(...)``: defaults for the Python library's entry points (DSPy's ``dspy.configure``).

They are not part of the settings merge: ``load_settings`` never reads them. The library's entry points
(``Agent``, ``Predict``/``compile``, ``decompose``) lay their own arguments over them, explicitly, with
``library_flags``. They live in a context variable, so ``configure`` inside an asyncio task or a
``contextvars.copy_context().run`` changes that context only, and a test can keep them to itself.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from chrysalis.config.flags import SettingFlags

__all__ = ["configure", "library_flags"]

_DEFAULTS: ContextVar[SettingFlags | None] = ContextVar("chrysalis_library_defaults", default=None)


def configure(*, model: str | None = None, base_url: str | None = None, **settings: Any) -> None:
    """Set defaults for the agents and modules made afterwards (e.g. ``model="openai:gpt-4o-mini"``).

    Values are checked when an agent or module is made; explicit arguments win over these.

    Raises:
        ConfigError: a name that is no setting (the message lists the settings).
    """
    given = SettingFlags.from_mapping({"model": model, "base_url": base_url, **settings})
    _DEFAULTS.set(library_flags(given))


def library_flags(given: SettingFlags) -> SettingFlags:
    """``given`` laid over what ``configure`` set."""
    defaults = _DEFAULTS.get()
    return given if defaults is None else defaults.overridden_by(given)
