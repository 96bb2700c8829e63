"""The repair plug-in: the ``repair`` tool for coding runs whose policy lets it run and whose model can be sampled."""

from __future__ import annotations

from chrysalis.capabilities.repair.tool import RepairArgs, has_sampling_path, pointing_to_repair, repair_tool
from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["RepairPlugin"]


class RepairPlugin(NoHooks):
    """``repair``, and ``run_tests`` whose failures point at it."""

    name = "repair"

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The tool for the coding profiles, on a model repair can sample, where the run's policy may let it run.

        The policy decides (level 2 or more, ``code`` mode, no rule denying ``repair`` or a file tool whole):
        a tool it would refuse every call of is not offered.
        """
        s = run.settings
        if run.tools_given or run.model_given or run.profile not in ("coder", "all"):
            return Offer()  # a given model object: repair would sample another one, by the settings' name
        if not has_sampling_path(run.model_name, s):
            return Offer()
        repair = repair_tool(
            s, run.model_name, run.run_id, run.stores.checkpoints, run.emit, authorise=run.authorise_patch
        )
        if run.policy.decide(repair, RepairArgs()).kind == "deny":
            return Offer()
        tools = {"repair": repair}
        if "run_tests" in run.tools:
            tools["run_tests"] = pointing_to_repair(run.tools["run_tests"])
        return Offer(tools)
