"""The repair plug-in: the ``repair`` tool for coding runs that may write and whose model can be sampled."""

from __future__ import annotations

from chrysalis.capabilities.repair.tool import has_sampling_path, pointing_to_repair, repair_tool
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["RepairPlugin"]


class RepairPlugin(NoHooks):
    """``repair``, and ``run_tests`` whose failures point at it."""

    name = "repair"

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The tool for the coding profiles whose policy may write, in code mode, on a model repair can sample."""
        s = run.settings
        if run.tools_given or run.profile not in ("coder", "all") or run.policy.may_write([]).kind == "deny":
            return Offer()
        if s.mode != "code" or not has_sampling_path(run.model_name, s):
            return Offer()
        tools = {
            "repair": repair_tool(
                s, run.model_name, run.run_id, run.stores.checkpoints, run.emit, authorise=run.authorise_patch
            )
        }
        if "run_tests" in run.tools:
            tools["run_tests"] = pointing_to_repair(run.tools["run_tests"])
        return Offer(tools)
