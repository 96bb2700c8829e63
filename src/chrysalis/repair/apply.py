"""The apply step: the winning patch is written only if its caller's policy allows it (``Authorise``).

Repair writes no file through a tool call, so the gate that judges the agent's writes never sees
its patch: the caller hands in an ``Authorise`` built from its ``Policy`` (``may_write``: level,
mode, deny and ask rules, protected tests) and its approver (``chrysalis.agent.gate.patches``).
The default allows everything, as a library call of ``Repairer`` always did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.tools.base import FileChange
from chrysalis.tools.policy import Decision

if TYPE_CHECKING:  # only annotations: a run imports this module at start-up, for ``Authorise``
    from chrysalis.repair.candidates import Candidate
    from chrysalis.stores.checkpoints import CheckpointStore

__all__ = ["Authorise", "allow_all", "apply_winner"]

Authorise = Callable[[Sequence[FileChange]], Awaitable[Decision]]
"""Asked before the patch is written, with each file's text before and after: the final decision
(``allow`` writes it; ``ask`` or ``deny`` leaves the workspace as it is, and the reason says why)."""


async def allow_all(_changes: Sequence[FileChange]) -> Decision:
    """Every patch may be written (the default: a library caller decides for itself)."""
    return Decision("allow")


async def apply_winner(
    workspace: Path,
    winner: Candidate,
    original: str,
    *,
    authorise: Authorise,
    checkpoints: CheckpointStore | None,
    run_id: str,
) -> tuple[bool, Decision | None]:
    """Write ``winner`` (checkpointed) if ``authorise`` allows it and the file is still as repair read it.

    Returns whether it was written, and the decision that refused it (None when it was written, or
    when the file had changed: repair's own reason).
    """
    assert winner.new_text is not None
    target = workspace / winner.suspect.path
    if target.read_text(encoding="utf-8") != original:
        return False, None
    decision = await authorise([FileChange(winner.suspect.path, original, winner.new_text)])
    if not decision.allowed:
        return False, decision
    if target.read_text(encoding="utf-8") != original:  # changed while the person was asked
        return False, None
    if checkpoints is not None:
        checkpoints.snapshot(run_id, workspace, target)
    target.write_text(winner.new_text, encoding="utf-8")
    return True, None
