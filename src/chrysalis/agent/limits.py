"""Every limit of one run in one frozen value, built once from the settings and the priority plan.

Before this, the numbers lived as constants in five files; now a reader finds them here and the
loop, the final check and the gate read them from the ``RunSetup`` (the gate gets the run's
``RunLimits`` from ``GatedTools.for_run``).
"""

from __future__ import annotations

from dataclasses import dataclass

from chrysalis.config import Settings
from chrysalis.evolve.priority import PriorityPlan

__all__ = ["MAX_DENIALS", "MAX_RED_FLAGS", "RunLimits"]


@dataclass(frozen=True)
class RunLimits:
    """When a run stops: steps, money, time, refusals, red flags, failed checks and retries of a reply."""

    max_steps: int
    """Model requests (``--max-steps``)."""
    budget_usd: float | None
    """USD (``--budget``); None: no limit."""
    timeout_s: float | None
    """Seconds for the whole run (``--timeout``); None: no limit."""
    check_retries: int
    """How often a failing final check goes back to the model (the priority plan's)."""
    max_denials: int = 2
    """A second refused call ends a one-shot run with exit 3: the task cannot go on at this level or mode."""
    max_red_flags: int = 6
    """Red flags (repeated calls, calls written as text, edits of protected tests) before the run is stuck."""
    model_retries: int = 3
    """How often an invalid reply (bad arguments, a refused answer) goes back to the model."""

    @classmethod
    def of(cls, settings: Settings, plan: PriorityPlan) -> RunLimits:
        """The limits of a run with ``settings`` (their ``limits`` concern) under ``plan``."""
        limits = settings.limits
        return cls(
            max_steps=limits.max_steps,
            budget_usd=limits.budget,
            timeout_s=limits.timeout,
            check_retries=plan.check_retries,
        )


MAX_DENIALS: int = RunLimits.max_denials
"""The default of ``RunLimits.max_denials``, under its old name; a run reads its own ``RunLimits``."""
MAX_RED_FLAGS: int = RunLimits.max_red_flags
"""The default of ``RunLimits.max_red_flags``, under its old name; a run reads its own ``RunLimits``."""
