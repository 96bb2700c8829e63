"""Our modes as ACP session modes: the editor shows them and may switch among those that narrow the configured one.

The mode comes from config, environment and flags like the rest of the policy; an editor may
narrow it (from ``code`` to ``ask`` for a question, to ``architect`` for a plan), never widen it:
a mode that would allow an effect the configured mode does not (``policy.mode_narrows``) is not offered.
"""

from __future__ import annotations

from typing import cast

from acp.schema import SessionMode, SessionModeState

from chrysalis.config import MODES, Mode
from chrysalis.errors import UsageError
from chrysalis.tools.policy import mode_narrows

__all__ = ["check_mode", "mode_state", "modes_under"]

_DESCRIPTIONS = {
    "ask": "Answers questions: reads the workspace, never changes it.",
    "architect": "Plans: reads the workspace, writes only docs and plans.",
    "code": "Reads, edits and runs commands, as the security level allows.",
    "semantic": "Works with memory and the knowledge graph; reads files, never changes them.",
}


def modes_under(ceiling: str) -> list[str]:
    """The modes an editor may choose when the configured mode is ``ceiling``, in our order."""
    return [mode for mode in MODES if mode_narrows(mode, ceiling)]


def mode_state(current: str, ceiling: str) -> SessionModeState:
    """The session's mode and the modes it may switch to, for ``session/new`` and ``session/load``."""
    modes = [
        SessionMode(id=mode, name=mode.capitalize(), description=_DESCRIPTIONS.get(mode))
        for mode in modes_under(ceiling)
    ]
    return SessionModeState(current_mode_id=current, available_modes=modes)


def check_mode(mode: str, ceiling: str) -> Mode:
    """``mode``, if the editor may choose it here.

    Raises:
        UsageError: ``mode`` is unknown, or allows more than the configured ``ceiling``; says which may be chosen.
    """
    allowed = modes_under(ceiling)
    if mode not in allowed:
        raise UsageError(
            f"session/set_mode: mode {mode!r} is not available: the configured mode is {ceiling!r}, "
            f"which an editor may only narrow (to {', '.join(allowed)}). Set mode in config, "
            "CHRYSALIS_MODE or serve --mode to allow more."
        )
    return cast(Mode, mode)
