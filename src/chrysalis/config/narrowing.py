"""What "narrower" means for each security setting: the one rule behind every narrowing.

Four parties may narrow what the agent may do, never widen it: a sub-agent, a request to ``serve --http``,
an editor switching modes over ACP, and the config of a folder the user has not trusted. The first three
ask ``Policy.narrowed`` (``chrysalis.tools.policy``); the last is decided while settings load, below the
tools layer, so before any ``Policy`` exists. Both read the rule here, so they cannot disagree: a mode
narrows when its effects are a subset of the other's, a level when it is no higher, and a switch when it
turns a protection on rather than off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chrysalis.config.choices import MODES, Mode

__all__ = ["MODE_EFFECTS", "NARROWS", "level_narrows", "mode_narrows", "modes_within"]

MODE_EFFECTS: Mapping[str, frozenset[str]] = {
    "ask": frozenset({"read", "network"}),
    "architect": frozenset({"read", "network", "write"}),
    "code": frozenset({"read", "network", "memory", "write", "shell"}),
    "semantic": frozenset({"read", "memory"}),
}
"""The effects (``chrysalis.tools.base.Effect``) each mode (``MODES``) can allow at some level."""


def mode_narrows(child: str, parent: str) -> bool:
    """Whether ``child`` allows nothing ``parent`` does not: its effects are a subset of the parent's.

    ``architect`` under ``code`` narrows (it writes only docs); ``code`` under ``architect`` does not.
    An unknown mode narrows nothing.
    """
    if child == parent:
        return True
    return child in MODE_EFFECTS and MODE_EFFECTS[child] <= MODE_EFFECTS.get(parent, frozenset())


def modes_within(parent: str) -> tuple[Mode, ...]:
    """The modes that narrow ``parent``, in ``MODES`` order."""
    return tuple(mode for mode in MODES if mode_narrows(mode, parent))


def level_narrows(child: int, parent: int) -> bool:
    """Whether security level ``child`` allows nothing ``parent`` does not: it is no higher."""
    return child <= parent


def _turns_on(child: bool, parent: bool) -> bool:
    """A protection (``protect_tests``) narrows when it stays or turns on."""
    return child or not parent


def _stays_off(child: bool, parent: bool) -> bool:
    """A loosening (``yes``, ``sandbox_network``, ``unsafe_no_sandbox``) narrows when it stays or turns off."""
    return not child or parent


def _keeps_a_judge(child: str | None, parent: str | None) -> bool:
    """A judge only ever adds reviews: setting or changing one narrows; removing the user's does not."""
    return child is not None or parent is None


NARROWS: Mapping[str, Callable[[Any, Any], bool]] = {
    "mode": mode_narrows,
    "level": level_narrows,
    "yes": _stays_off,
    "protect_tests": _turns_on,
    "sandbox_network": _stays_off,
    "unsafe_no_sandbox": _stays_off,
    "judge": _keeps_a_judge,
}
"""For each security setting but the permission rules (whose ``allow`` lists widen, and ``ask`` and ``deny``
lists narrow): whether a value narrows another (typed values, as ``coerce_value`` returns them)."""
