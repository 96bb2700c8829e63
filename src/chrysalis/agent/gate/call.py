"""What the gate's wrappers pass along: one ``Call``, and the one-method ``Tools`` protocol they share.

Each wrapper (``report``, ``guards``, ``policy``, ``judge``, ``approval``, ``durable``,
``checkpoint``) does one thing to a call and hands it to the ``inner`` tools, down to ``run``,
which runs it (pydantic-ai's ``WrapperToolset``, with our calls). The ``Call`` is the record of one
call on its way: what every wrapper needs to read, and what each decided for the ones outside it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from chrysalis.tools.base import ToolResult, ToolSpec
from chrysalis.tools.policy import Decision

__all__ = ["Call", "Outcome", "Tools", "Wrapper"]

Outcome = Literal["allow", "approved", "declined", "denied", "refused"]
"""What the gate decided, as the ``tool_result`` event reports it (``refused``: stopped before the policy)."""


@dataclass
class Call:
    """One validated tool call on its way through the gate."""

    spec: ToolSpec
    args: Any
    """The validated arguments (an instance of ``spec.args``)."""
    raw: dict[str, Any]
    """The arguments as the model wrote them: what events, guards, the judge and the approver see."""
    id: str
    decision: Decision = field(default_factory=lambda: Decision("allow"))
    """The policy's answer, which the judge may tighten and the approval wrapper acts on."""
    outcome: Outcome = "refused"
    """Set by the wrapper that let the call through (or refused it)."""
    denial: str | None = None
    """A refusal that counts towards the run's ``max_denials`` (the report wrapper counts it)."""
    red_flag: str | None = None
    """A refusal that is a red flag instead of a denial (a protected test file; the guards count it)."""
    around: list[Callable[[], AbstractContextManager[None]]] = field(default_factory=list)
    """Entered around the tool in the thread that runs it (a snapshot before and after); a ``UsageError`` on
    entering means the call does not run."""
    interrupted: bool = False
    """A durable run's record says a crash cut this call short: it had no result."""

    @property
    def passed(self) -> bool:
        """The call got through the policy and approval (it ran, or its recorded result was replayed)."""
        return self.outcome in ("allow", "approved")

    def refuse(self, reason: str, outcome: Outcome, *, counts: bool = True) -> ToolResult:
        """Refuse the call with ``reason`` (what the model reads); ``counts``: towards the run's ``max_denials``."""
        self.outcome = outcome
        if counts:
            self.denial = reason
        return ToolResult.failure(reason)


class Tools(Protocol):
    """Runs a call, or refuses it: what every wrapper is and wraps."""

    async def call(self, call: Call) -> ToolResult:
        """The call's result (a refusal is a failed result, never an exception)."""
        ...


@dataclass(kw_only=True)
class Wrapper:
    """Tools that hand every call to ``inner``; a wrapper overrides ``call`` to add one concern."""

    inner: Tools

    async def call(self, call: Call) -> ToolResult:
        """Hand the call on unchanged."""
        return await self.inner.call(call)
