"""Generate-and-validate repair (``chrysalis fix``, the ``repair`` tool): see ``engine.py`` for the whole path.

The engine's names are imported on first use (PEP 562): a run imports ``chrysalis.repair.apply``
for its ``Authorise`` at start-up, and only a repair needs the engine and what it imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from chrysalis.repair.apply import Authorise, allow_all

if TYPE_CHECKING:
    from chrysalis.repair.engine import RepairConfig, Repairer, RepairReport

__all__ = ["Authorise", "RepairConfig", "RepairReport", "Repairer", "allow_all"]

_FROM_ENGINE = ("RepairConfig", "RepairReport", "Repairer")


def __getattr__(name: str) -> object:
    """``RepairConfig``, ``RepairReport`` and ``Repairer``, from ``engine`` when first asked for."""
    if name in _FROM_ENGINE:
        return getattr(importlib.import_module("chrysalis.repair.engine"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
