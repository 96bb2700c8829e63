"""Run assembly: from a run's scope to the frozen ``RunSetup`` the loop runs (prompt, tools, model, limits).

Every capability (``chrysalis.capabilities.registry``) is asked for its ``Offer``; their tools join
the profile's, their prompt sections go around the project's rules and file map, and the whole set
passes through the one gate (``GatedTools``) under the run's ``Policy``. Nothing here knows which
capabilities exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chrysalis.agent.choice import SessionModels
from chrysalis.agent.durability import Durability
from chrysalis.agent.gate.patches import patch_authoriser
from chrysalis.agent.judge import SecurityJudge
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.loop import RunSetup, Tally
from chrysalis.agent.prompts import AGENT_CONTEXT, build_system_prompt
from chrysalis.agent.step_vote import StepVoting
from chrysalis.agent.toolset import Approver, GatedTools
from chrysalis.capabilities.scope import AgentCapability, RunScope, SavedConversation
from chrysalis.capabilities.subagents.agents import Spawn
from chrysalis.config import Settings
from chrysalis.events import Event
from chrysalis.evolve.priority import plan_for
from chrysalis.plugin import Offer
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.domains import ApprovedDomains
from chrysalis.tools.policy import Policy

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

__all__ = ["RunAssembly", "handover", "run_scope"]


@dataclass(frozen=True)
class RunAssembly:
    """What a session hands every run's assembly: its capabilities, approver, judge and durability."""

    capabilities: Sequence[AgentCapability]
    approver: Approver | None
    judge: Callable[[], SecurityJudge | None]
    durability: Durability | None
    context_name: str
    """The workspace's context (tool hints learned for this project)."""

    def _prompt(self, run: RunScope, offers: Sequence[Offer[ToolSpec]], guidance: str) -> str:
        """The system prompt: the mode's rules, what was learned, the capabilities' sections around the project's."""
        s = run.settings
        context, learned = run.stores.context.load(self.context_name), run.stores.context.load(AGENT_CONTEXT)
        hints = "\n".join(h for h in (learned.tool_hints.strip(), context.tool_hints.strip()) if h)
        return build_system_prompt(
            s.workspace,
            s.mode,
            level=s.level,
            tool_hints=hints,
            lessons=learned.system,
            guidance=guidance,
            head=[offer.prompt for offer in offers if offer.place == "head"],
            tail=[offer.prompt for offer in offers if offer.place == "tail"],
        )

    def build(
        self,
        run: RunScope,
        history: list[ModelMessage],
        on_history: Callable[[list[ModelMessage]], None] | None,
        *,
        voting: StepVoting | None = None,
    ) -> RunSetup:
        """The setup of ``run``: its prompt, its gated tools, its model (its critical replies voted on), its price."""
        from chrysalis.llm.pricing import cost_usd

        s, model_name = run.settings, run.model_name
        plan = plan_for(s.priority)
        limits = RunLimits.of(s, plan)  # once: the gate and the loop read the same limits
        offers = [capability.offer(run) for capability in self.capabilities]
        offered: dict[str, ToolSpec] = dict(run.tools)
        for offer in offers:
            offered |= offer.tools
        tools = GatedTools.for_run(
            s,
            offered,
            run_id=run.run_id,
            checkpoints=run.stores.checkpoints,
            emit=run.emit,
            approver=self.approver,
            limits=limits,
            judge=self.judge(),
            durability=self.durability,
            policy=run.policy,
            step=run.step,
        )

        def price(tokens_in: int, tokens_out: int) -> float:
            return cost_usd(model_name, tokens_in, tokens_out, s.prices)

        return RunSetup(
            run_id=run.run_id,
            task=run.task,
            settings=s,
            model=_voted(run, offered, voting),
            instructions=self._prompt(run, offers, plan.guidance),
            tools=tools,
            history=history,
            emit=run.emit,
            price=price,
            limits=limits,
            durability=self.durability,
            model_name=model_name,
            on_history=on_history,
        )


def _voted(run: RunScope, offered: dict[str, ToolSpec], voting: StepVoting | None) -> Model:
    """The run's model; with ``voting``, wrapped so that its critical replies are voted on."""
    if voting is None:
        return run.model()
    from chrysalis.agent.voting_model import VotingModel

    effects = {name: spec.effect for name, spec in offered.items()}
    return VotingModel(run.model(), voting, effects, run_id=run.run_id, emit=run.emit, step=run.step)


def run_scope(
    run_id: str,
    task: str,
    tally: Tally,
    settings: Settings,
    stores: Stores,
    emit: Callable[[Event], None],
    models: SessionModels,
    conversation: SavedConversation | None,
    *,
    saved: bool,
    sub_agent: bool,
    durable: bool,
    spawn: Spawn,
    approver: Approver | None,
    domains: ApprovedDomains | None = None,
) -> RunScope:
    """The run as capabilities see it: the session's choices now, the run's one policy, its tally's readers.

    ``domains`` are the session's approved web domains, which the run's policy reads and adds to.
    """
    policy = Policy.from_settings(settings, domains).for_task(task, settings, sub_agent=sub_agent)

    def charge(cost: float) -> None:
        tally.cost_usd += cost

    return RunScope(
        run_id=run_id,
        task=task,
        settings=settings,
        stores=stores,
        emit=emit,
        model=lambda: models.model(settings),
        model_name=models.active_model,
        profile=models.profile,
        tools=models.tools,
        tools_given=models.tools_given,
        model_given=models.model_given,
        conversation=conversation,
        saved=saved,
        sub_agent=sub_agent,
        durable=durable,
        policy=policy,
        authorise_patch=patch_authoriser(policy, approver, run_id=run_id, emit=emit),
        spawn=spawn,
        step=lambda: tally.steps,
        spent=lambda: tally.cost_usd,
        charge=charge,
    )


def handover(task: str, drafted_by: str, problem: str) -> str:
    """What the stronger model is told when it takes over a draft whose check failed."""
    return (
        f"A cheaper model ({drafted_by}) worked on this task first, in the conversation above; its changes are "
        f"still in the workspace, but the check failed: {problem}\n"
        f"You are a stronger model taking over. Review its changes, fix what is wrong, and finish the task: {task}"
    )
