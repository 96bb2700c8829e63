"""The run's ``Policy`` decides each call: a denial is refused here; allow and ask go on (to the judge, approval)."""

from __future__ import annotations

from dataclasses import dataclass

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.tools.base import ToolContext, ToolResult
from chrysalis.tools.policy import Policy
from chrysalis.tools.run_tests import code_under_test

__all__ = ["PolicyTools"]

_INLINE_SOURCE_CHARS = 3000


@dataclass(kw_only=True)
class PolicyTools(Wrapper):
    """Refuses what ``policy`` denies, saying what would allow it; a protected test's refusal points at the code."""

    policy: Policy
    context: ToolContext

    async def call(self, call: Call) -> ToolResult:
        """Refuse a denied call (a denial, or a red flag for a protected test); note the decision and hand it on."""
        call.decision = self.policy.decide(call.spec, call.args)
        if call.decision.kind != "deny":
            return await self.inner.call(call)
        reason = f"Refused by policy: {call.decision.reason}"
        if call.decision.by != "protected_test":
            return call.refuse(reason, "denied")
        call.red_flag = reason
        return call.refuse(reason + self._fix_here_hint(call), "denied", counts=False)

    def _fix_here_hint(self, call: Call) -> str:
        """Point a model that tried to edit a test at the code the test imports, with that code inline.

        Small models fixate on the assertion they can see; showing them the code under test right
        in the refusal is what turns them towards the real fix.
        """
        workspace = self.context.workspace
        sources = [src for test in call.spec.write_targets(call.args) for src in code_under_test(workspace, test)]
        if not sources:
            return ""
        hint = f" The test imports {', '.join(sources)}: the bug is there. Fix it with edit_file."
        text = (workspace / sources[0]).read_text(encoding="utf-8", errors="replace")
        if len(text) <= _INLINE_SOURCE_CHARS:
            hint += f"\nHere is {sources[0]}:\n{text}"
        return hint
