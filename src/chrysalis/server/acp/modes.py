"""Our modes as ACP session modes: the editor shows them and may switch among those that narrow the configured one.

The mode comes from config, environment and flags like the rest of the policy; an editor may
narrow it (from ``code`` to ``ask`` for a question, to ``architect`` for a plan), never widen it:
a mode that would allow an effect the configured mode does not is not offered: the configured policy
decides (``Policy.modes_within``, ``Policy.narrowed``), as it does for a sub-agent or an HTTP request.
"""

from __future__ import annotations

from acp.schema import SessionMode, SessionModeState

from chrysalis.errors import UsageError
from chrysalis.tools.policy import NarrowingRefused, Policy

__all__ = ["check_mode", "mode_state", "modes_under"]

_DESCRIPTIONS = {
    "ask": "Answers questions: reads the workspace, never changes it.",
    "architect": "Plans: reads the workspace, writes only docs and plans.",
    "code": "Reads, edits and runs commands, as the security level allows.",
    "semantic": "Works with memory and the knowledge graph; reads files, never changes them.",
}


def modes_under(ceiling: Policy) -> list[str]:
    """The modes an editor may choose under the configured policy ``ceiling``, in our order."""
    return list(ceiling.modes_within())


def mode_state(current: str, ceiling: Policy) -> SessionModeState:
    """The session's mode and the modes it may switch to, for ``session/new`` and ``session/load``."""
    modes = [
        SessionMode(id=mode, name=mode.capitalize(), description=_DESCRIPTIONS.get(mode))
        for mode in modes_under(ceiling)
    ]
    return SessionModeState(current_mode_id=current, available_modes=modes)


def check_mode(mode: str, ceiling: Policy) -> Policy:
    """The policy of the session in ``mode``, if the editor may choose it under the configured ``ceiling``.

    Raises:
        UsageError: ``mode`` is unknown, or allows more than the configured mode; says which may be chosen.
    """
    try:
        return ceiling.narrowed(mode=mode, asker="An editor")
    except NarrowingRefused as refused:
        raise UsageError(
            f"session/set_mode: mode {mode!r} is not available: the configured mode is {ceiling.mode!r}, "
            f"which an editor may only narrow (to {', '.join(modes_under(ceiling))}). Set mode in config, "
            "CHRYSALIS_MODE or serve --mode to allow more."
        ) from refused
