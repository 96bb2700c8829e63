"""A patch written outside a tool call (``chrysalis fix``, the ``repair`` tool) passes the same policy as write_file.

``patch_authoriser`` is the ``chrysalis.repair.Authorise`` a caller hands to ``Repairer``: the run's
``Policy.may_write`` decides (level, mode, deny and ask rules, protected tests), and what it asks
about goes to the approver as the ``write_file`` it amounts to, so a terminal shows its diff first.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from chrysalis.agent.gate.approval import Approver, Asking
from chrysalis.events import Event
from chrysalis.tools.base import FileChange
from chrysalis.tools.policy import Decision, Policy

if TYPE_CHECKING:
    from chrysalis.repair.apply import Authorise

__all__ = ["patch_authoriser"]


def patch_authoriser(
    policy: Policy, approver: Approver | None, *, run_id: str, emit: Callable[[Event], None]
) -> Authorise:
    """Allow a patch ``policy`` allows; ask ``approver`` about one it asks about (an ``approval_request`` event each).

    A refusal's reason ends as the gate's does: "It was not applied: the user declined it." (or why no one could).
    """
    asking = Asking(approver, run_id, emit)
    numbers = itertools.count(1)

    async def authorise(changes: Sequence[FileChange]) -> Decision:
        decision = policy.may_write([change.path for change in changes])
        if decision.kind != "ask":
            return decision
        for change in changes:
            args = {"path": change.path, "content": change.new or ""}
            call_id = f"{run_id}-patch-{next(numbers)}"
            refusal = await asking.ask(call_id, "write_file", args, decision, done="applied")
            if refusal is not None:
                return replace(decision, reason=refusal)
        return replace(decision, kind="allow")

    return authorise
