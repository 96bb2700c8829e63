"""A call the policy asks about runs only when a person approves it; with no one to ask, it is refused.

A yes to a web domain new to the session is remembered by the policy (``Policy.remember``), so that
domain is not asked about again in the session; a no is the model's tool error, "refused: HOST was
not approved: the user declined it."
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.events import ApprovalRequest, Event
from chrysalis.tools.base import ToolResult
from chrysalis.tools.domains import ApprovedDomains
from chrysalis.tools.policy import Decision, Policy

__all__ = ["ApprovalTools", "ApprovedDomains", "Approver", "Asking", "one_at_a_time", "rerun_hint"]
# ApprovedDomains: the session's memory of what a yes approved beyond its call; this wrapper fills it (Policy.remember).

Approver = Callable[[str, dict[str, Any], str], Awaitable[bool]]
"""Asks the user: (tool, args, reason) -> approved?"""


@dataclass(frozen=True)
class Asking:
    """Puts a decision to the person, reports the answer (an ``approval_request`` event) and says why not."""

    approver: Approver | None
    """None: nobody can approve here (no terminal, ``--json``, a server), so every question is refused."""
    run_id: str
    emit: Callable[[Event], None]

    async def ask(
        self, call_id: str, tool: str, args: dict[str, Any], decision: Decision, *, done: str = "run"
    ) -> str | None:
        """None when approved, else the refusal: "REASON It was not DONE: the user declined it." (or: no one could).

        A new web domain's refusal names the domain instead: "refused: HOST was not approved: the user declined it."
        """
        approved = self.approver is not None and await self.approver(tool, args, decision.reason)
        self.emit(
            ApprovalRequest(
                run_id=self.run_id, call_id=call_id, tool=tool, args=args, reason=decision.reason, approved=approved
            )
        )
        if approved:
            return None
        how = "the user declined it" if self.approver else f"no one can approve it here{rerun_hint(decision)}"
        if decision.domain is not None:
            return f"refused: {decision.domain} was not approved: {how}."
        return f"{decision.reason} It was not {done}: {how}."


def rerun_hint(decision: Decision) -> str:
    """How to let a call that needs approval run unattended: --yes, unless a rule insists on asking."""
    if decision.by == "rule" and decision.rule is not None:
        return f" (the rule ask {decision.rule} asks even with --yes; remove it from {decision.rule.source})"
    if decision.by == "judge":
        return " (a call the judge calls unsafe runs only with a person's approval; make it yourself if it is fine)"
    return " (rerun with --yes)"


@dataclass(kw_only=True)
class ApprovalTools(Wrapper):
    """Runs a call its decision allows; one it asks about runs only if approved (a refusal counts as a denial)."""

    asking: Asking
    policy: Policy
    """The run's, which remembers what a yes approved beyond the call (a new web domain, for the session)."""

    async def call(self, call: Call) -> ToolResult:
        """Run the call when allowed or approved; its outcome is ``allow``, ``approved`` or ``declined``."""
        if call.decision.kind == "ask":
            refusal = await self.asking.ask(call.id, call.spec.name, call.raw, call.decision)
            if refusal is not None:
                return call.refuse(refusal, "declined")
            self.policy.remember(call.decision)
            call.outcome = "approved"
        else:
            call.outcome = "allow"
        return await self.inner.call(call)


def one_at_a_time(approver: Approver | None, lock: asyncio.Lock) -> Approver | None:
    """A session's approver for its sub-agents: one question at a time, saying a sub-agent asks."""
    if approver is None:
        return None

    async def ask(tool: str, args: dict[str, Any], reason: str) -> bool:
        async with lock:
            return await approver(tool, args, f"(a sub-agent asks) {reason}")

    return ask
