"""The framework runs repair itself: a small model that fails the tests or goes in circles does not get to choose.

Typed as a user would, "fix the bug so the tests pass" on the embedded 1.5B model fixed none of 8
bugs that ``chrysalis fix`` fixed 4 of: the model grepped the same pattern until the repeat guard
stopped it, and never ran the tests or called ``repair``. So when a run offers a tool that fixes
failing tests (``ToolSpec.fixes_failing_tests``: the repair plug-in's ``repair``) and the model has
not called it, the loop calls it once, before the run ends:

- ``failed_check``: the model answered, and the framework's final check (``verify.FinalCheck``)
  failed; if the tests pass after the call, the answer stands, verified, with what repair did added.
- ``stalled``: the run was about to stop because the model kept tripping guards (repeated calls,
  red flags) or reached ``--max-steps``; the check runs first (the tests may fail only where the
  task says they should), and a repair that makes it pass ends the run with an answer.

The call goes through the run's gates like a model's call (policy, approval of the patch at its
diff, checkpoint, ``tool_call`` and ``tool_result`` events), after a ``framework_call`` event that
says why. A policy that would refuse it (level below 2, a mode that cannot write) means no call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from chrysalis.agent.guards import RunGuards
from chrysalis.agent.toolset import GatedTools
from chrysalis.agent.verify import FinalCheck
from chrysalis.errors import ChrysalisError, PolicyDenied
from chrysalis.events import Event, FrameworkCall
from chrysalis.tools.base import ToolSpec

__all__ = ["Rescue"]

Trigger = Literal["failed_check", "stalled"]


class Rescue:
    """Calls the run's tool that fixes failing tests, at most once per run, when the model could not."""

    def __init__(self, run_id: str, tools: GatedTools, check: FinalCheck, emit: Callable[[Event], None]) -> None:
        self._run_id = run_id
        self._tools = tools
        self._check = check
        self._emit = emit
        self.tried = False

    def _tool(self, guards: RunGuards) -> ToolSpec | None:
        """The tool to call, if the run offers one, the model never called it and the policy would not refuse it."""
        spec = next((s for s in self._tools.specs.values() if s.fixes_failing_tests), None)
        if spec is None or self.tried or spec.name in guards.called_tools or self._check.command is None:
            return None
        return None if self._tools.policy.decide(spec, spec.args()).kind == "deny" else spec

    async def after_failed_check(self, guards: RunGuards) -> str | None:
        """After the final check failed: call the tool; what it did if the tests now pass, else None."""
        if not self._check.tests_failed:
            return None
        return await self._call("failed_check", self._check.verdict.problem or "the tests fail", guards)

    async def when_stalled(self, why: str, guards: RunGuards) -> str | None:
        """Before a stuck run stops: check, and if the tests fail, call the tool; what it did if they now pass."""
        if self._tool(guards) is None:
            return None
        await self._check.run(guards)
        return await self._call("stalled", why, guards) if self._check.tests_failed else None

    async def _call(self, trigger: Trigger, reason: str, guards: RunGuards) -> str | None:
        spec = self._tool(guards)
        if spec is None:
            return None
        self.tried = True
        call_id = f"framework-{trigger}"
        self._emit(FrameworkCall(run_id=self._run_id, tool=spec.name, call_id=call_id, trigger=trigger, reason=reason))
        try:
            outcome = await self._tools.call(spec.name, {}, call_id)
        except PolicyDenied:
            raise  # the run's last refusal: it ends the run, as a model's call would
        except ChrysalisError:  # the tool's own model failed (a server error): the model goes on as before
            return None
        await self._check.run(guards)
        if self._check.verdict.verified is not True:
            return None
        return str(outcome.get("result") or "")
