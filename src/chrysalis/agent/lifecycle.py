"""What happens around each of a session's runs, step by step.

Its scope, its announcement, the capabilities' start and finish, the hand-over of a failed draft, and
the conversation kept however the run ended.

``AgentSession.run`` calls these in order; each is a step of its table of contents.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Protocol

from chrysalis.agent.assembly import RunAssembly, handover, run_scope
from chrysalis.agent.choice import RunChoice, SessionModels, start_event
from chrysalis.agent.conversation import StoredConversation
from chrysalis.agent.durability import Durability
from chrysalis.agent.loop import AgentLoop, Tally
from chrysalis.agent.recording import workspace_context
from chrysalis.agent.step_vote import StepVoting, step_voting
from chrysalis.agent.toolset import Approver
from chrysalis.capabilities.scope import AgentCapability, RunScope
from chrysalis.capabilities.subagents.agents import ChildSession
from chrysalis.config import Settings
from chrysalis.errors import ChrysalisError
from chrysalis.events import ErrorEvent, Event, Refine, RunResult
from chrysalis.stores import Stores
from chrysalis.tools.domains import ApprovedDomains

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["RunLifecycle", "SessionParts"]


class SessionParts(Protocol):
    """What the lifecycle reads of its session, at each run (the REPL changes settings between runs)."""

    settings: Settings
    stores: Stores
    models: SessionModels
    conversation: StoredConversation
    capabilities: tuple[AgentCapability, ...]
    approver: Approver | None
    durability: Durability | None
    parent_run_id: str | None
    domains: ApprovedDomains

    def emit(self, event: Event) -> None:
        """Record an event and pass it on."""
        ...

    def child(self, settings: Settings, profile: str, *, parent_run_id: str) -> ChildSession:
        """A sub-agent's session."""
        ...


class RunLifecycle:
    """A session's runs from the outside: made once per session, asked at each step of every run."""

    def __init__(self, session: SessionParts) -> None:
        self.session = session
        self.stores, self.emit, self.models = session.stores, session.emit, session.models
        self.conversation, self.capabilities = session.conversation, session.capabilities
        self.parent_run_id, self.durability = session.parent_run_id, session.durability
        self.saved = session.parent_run_id is None and session.durability is None
        """The runs' steps are saved as a stored conversation (not a sub-agent's, not a durable run's)."""
        self.voting: StepVoting | None = None
        """The current run's voting triggers (``agent/step_vote.py``), set when it begins."""

    @property
    def assembly(self) -> RunAssembly:
        """The builder of a run's ``RunSetup``, with the session's approver and judge as they are now."""
        s = self.session
        judge = partial(s.models.judge, s.settings)
        return RunAssembly(self.capabilities, s.approver, judge, self.durability, workspace_context(s.settings))

    def spawn(self, settings: Settings, profile: str, parent_run_id: str) -> ChildSession:
        """A sub-agent's session (``capabilities/subagents``)."""
        return self.session.child(settings, profile, parent_run_id=parent_run_id)

    def scope(self, run_id: str, task: str, tally: Tally, settings: Settings) -> RunScope:
        """The run as capabilities see it (``capabilities/scope.py``), with the session's choices now."""
        sub_agent = self.parent_run_id is not None
        return run_scope(
            run_id,
            task,
            tally,
            settings,
            self.stores,
            self.emit,
            self.models,
            None if sub_agent else self.conversation,
            saved=self.saved,
            sub_agent=sub_agent,
            durable=self.durability is not None,
            spawn=self.spawn,
            approver=self.session.approver,
            domains=self.session.domains,
        )

    async def begin(self, scope: RunScope, kind: str, choice: RunChoice) -> None:
        """Name the stored conversation's session, announce the run, and start every capability."""
        if scope.saved:
            self.conversation.begin(scope.task)
        session_id = self.conversation.session_id if self.parent_run_id is None else None
        self.voting = step_voting(scope.settings, self.stores.evals, kind, self.models.active_model)
        announce = start_event(
            scope.run_id,
            scope.task,
            kind,
            scope.settings,
            self.models,
            choice,
            parent_run_id=self.parent_run_id,
            session_id=session_id,
            voting=self.voting,
        )
        self.emit(announce)
        for capability in self.capabilities:
            await capability.start(scope)

    def loop(self, scope: RunScope, tally: Tally) -> AgentLoop:
        """The loop of ``scope``, on the conversation so far (saved after every step when it is a stored one)."""
        on_history = self.conversation.save if self.saved else None
        setup = self.assembly.build(scope, self.conversation.history, on_history, voting=self.voting)
        return AgentLoop(setup, tally=tally)

    async def abandon(self, scope: RunScope, exc: BaseException) -> None:
        """A run whose set-up failed: say why (a bad model name, a budget) and release what was started."""
        if isinstance(exc, ChrysalisError):
            self.emit(
                ErrorEvent(run_id=scope.run_id, reason=type(exc).__name__, message=str(exc), exit_code=exc.exit_code)
            )
        await self.finish(scope)  # however the set-up failed (Ctrl-C included), no server outlives it

    async def finish(self, scope: RunScope) -> None:
        """Every capability's ``finish``: servers stop, sub-agents are cancelled."""
        for capability in self.capabilities:
            await capability.finish(scope)

    def refining(self, draft: AgentLoop, scope: RunScope, refiner: str, result: RunResult) -> AgentLoop:
        """The loop that takes over a failed draft (seed 001's draft→refine): the stronger model, the same tally."""
        problem = result.problem or "its check failed"
        drafted_by = self.models.active_model
        self.emit(Refine(run_id=scope.run_id, draft_model=drafted_by, model=refiner, reason=problem))
        self.models.active_model, self.conversation.history = refiner, draft.history
        refined = replace(scope, task=handover(scope.task, drafted_by, problem), model_name=refiner)
        return AgentLoop(self.assembly.build(refined, draft.history, draft.setup.on_history), tally=draft.tally)

    def keep(self, history: list[ModelMessage], tally: Tally) -> None:
        """However the run ended (a limit, an error, Ctrl-C): the conversation so far is kept."""
        if self.saved:
            self.conversation.end_run(history, steps=tally.steps, cost_usd=tally.cost_usd)
        elif self.parent_run_id is None:
            self.conversation.history = history
