"""A conversation with the agent in one workspace: what lives across runs, and the spine of each run.

``AgentSession`` keeps the settings, the stores, the stored conversation (``--continue``,
``--resume``, ``--fork``), the models (``agent/choice.py``), the capabilities
(``chrysalis.capabilities``) and the totals ``/cost`` shows. ``run`` is the table of contents of one
task: choose the model, announce the run, start the capabilities, assemble the setup
(``agent/assembly.py``), loop (``agent/loop.py``), hand a failed draft to a stronger model, and
record the run (``agent/recording.py``) however it ended.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chrysalis.agent.assembly import RunAssembly, handover, one_at_a_time, run_scope
from chrysalis.agent.choice import RunChoice, SessionModels, start_event
from chrysalis.agent.conversation import StoredConversation
from chrysalis.agent.durability import Durability
from chrysalis.agent.learning import task_type
from chrysalis.agent.loop import AgentLoop, Tally
from chrysalis.agent.recording import RunRecorder, Totals, save_context
from chrysalis.agent.toolset import Approver
from chrysalis.capabilities.registry import SessionFacts, capabilities_for
from chrysalis.errors import ChrysalisError
from chrysalis.events import ErrorEvent, Event, Refine, RunResult, fan_out

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from chrysalis.capabilities.compaction.summary import Compaction
    from chrysalis.capabilities.scope import RunScope
    from chrysalis.config import Settings
    from chrysalis.stores import Stores
    from chrysalis.tools.base import ToolSpec

__all__ = ["AgentSession"]


class AgentSession:
    """A conversation with the agent in one workspace; each ``run`` is one task."""

    def __init__(
        self,
        settings: Settings,
        *,
        model: Model | None = None,
        approver: Approver | None = None,
        on_event: Callable[[Event], None] | None = None,
        stores: Stores | None = None,
        tools: dict[str, ToolSpec] | None = None,
        rng: random.Random | None = None,
        judge_model: Model | None = None,
        parent_run_id: str | None = None,
        durability: Durability | None = None,
        mcp_servers: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Prepare a session (``model = "auto"``: its candidates are checked now, a bad one is a ``ConfigError``).

        ``parent_run_id`` makes it a sub-agent's; ``durability`` a durable run's; ``mcp_servers`` adds servers.
        """
        from chrysalis.stores import Stores

        self.settings, self.parent_run_id, self.durability, self.approver = (
            settings,
            parent_run_id,
            durability,
            approver,
        )
        self.stores = stores or Stores.open(settings.home)
        self._owns_stores = stores is None
        self.models = SessionModels(
            settings,
            self.stores.evals,
            model=model,
            judge_model=judge_model,
            tools=tools,
            rng=rng,
            sub_agent=parent_run_id is not None,
            durability=durability,
        )
        self.capabilities = capabilities_for(SessionFacts(settings, parent_run_id is not None, mcp_servers))
        listeners = [listener for listener in (on_event,) if listener is not None]
        self.on_event = fan_out(*listeners, *(capability.on_event for capability in self.capabilities))
        self.conversation = StoredConversation(self.stores, settings.workspace)
        """The messages, their stored session and summary (``--continue``, ``--resume``, ``--fork``, ``/compact``)."""
        self.totals = Totals()
        self.last_run_id: str | None = None
        self._approvals = asyncio.Lock()
        """Sub-agents run concurrently; their questions to the user go one at a time."""

    async def run(self, task: str, *, run_id: str | None = None) -> RunResult:
        """Run one task to its end; raises a ``ChrysalisError`` subclass when it cannot finish.

        Raises:
            ConfigError: a ``--budget`` is set for a model with no known price (before anything is sent).
        """
        run_id = run_id or uuid.uuid4().hex[:12]
        self.last_run_id, self._approvals, kind, tally = run_id, asyncio.Lock(), task_type(task), Tally()
        scope = self._scope(run_id, task, tally)
        try:
            choice = await self.models.choose(self.settings, kind)
            scope = self._begin(self._scope(run_id, task, tally), kind, choice)
            for capability in self.capabilities:
                await capability.start(scope)
            loop = AgentLoop(self._assembly().build(scope, self.history, self._on_history()), tally=tally)
        except BaseException as exc:
            await self._abandon(scope, exc)
            raise
        recorder, success = RunRecorder(self.stores, self.totals, run_id, kind, tally), False
        try:
            result = await loop.run(announce=choice.refiner is None)
            if choice.refiner is not None and not result.success:
                recorder.part(profile=self.profile, model=self.active_model, success=False)
                loop = self._refining(loop, scope, choice.refiner, result)
                result = await loop.run()
            elif choice.refiner is not None:
                self.emit(result)
            success = result.success
            if scope.conversation is not None:  # a sub-agent's conversation is not the workspace's
                save_context(self.stores, self.context_name, self.settings, loop.setup.instructions)
        finally:
            await self._finish(scope)
            recorder.part(profile=self.profile, model=self.active_model, success=success)
            self._keep(loop, tally)
        return result

    def _scope(self, run_id: str, task: str, tally: Tally) -> RunScope:
        """The run as capabilities see it (``capabilities/scope.py``)."""
        return run_scope(
            run_id,
            task,
            tally,
            self.settings,
            self.stores,
            self.emit,
            self.models,
            self.conversation if self.parent_run_id is None else None,
            saved=self._saves_steps(),
            sub_agent=self.parent_run_id is not None,
            durable=self.durability is not None,
            spawn=lambda s, p, r: self.child(s, p, parent_run_id=r),
            approver=self.approver,
        )

    def _begin(self, scope: RunScope, kind: str, choice: RunChoice) -> RunScope:
        """Name the stored conversation's session and announce the run (its ``start`` event)."""
        if scope.saved:
            self.conversation.begin(scope.task)
        session_id = self.session_id if self.parent_run_id is None else None
        self.emit(
            start_event(
                scope.run_id,
                scope.task,
                kind,
                self.settings,
                self.models,
                choice,
                parent_run_id=self.parent_run_id,
                session_id=session_id,
            )
        )
        return scope

    def _assembly(self) -> RunAssembly:
        return RunAssembly(
            self.capabilities,
            self.approver,
            lambda: self.models.judge(self.settings),
            self.durability,
            self.context_name,
        )

    def _on_history(self) -> Callable[[list[Any]], None] | None:
        """Saves the conversation after every step (a stopped run loses nothing), when it is a stored one."""
        return self.conversation.save if self._saves_steps() else None

    async def _abandon(self, scope: RunScope, exc: BaseException) -> None:
        """A run whose set-up failed: say why (a bad model name, a budget) and release what was started."""
        if isinstance(exc, ChrysalisError):
            self.emit(
                ErrorEvent(run_id=scope.run_id, reason=type(exc).__name__, message=str(exc), exit_code=exc.exit_code)
            )
        await self._finish(scope)  # however the set-up failed (Ctrl-C included), no server outlives it

    async def _finish(self, scope: RunScope) -> None:
        for capability in self.capabilities:
            await capability.finish(scope)

    def _refining(self, draft: AgentLoop, scope: RunScope, refiner: str, result: RunResult) -> AgentLoop:
        """The loop that takes over a failed draft (seed 001's draft→refine): see ``handover``."""
        problem = result.problem or "its check failed"
        self.emit(Refine(run_id=scope.run_id, draft_model=self.active_model, model=refiner, reason=problem))
        task = handover(scope.task, self.active_model, problem)
        self.models.active_model, self.history = refiner, draft.history
        setup = self._assembly().build(
            replace(scope, task=task, model_name=refiner), draft.history, draft.setup.on_history
        )
        return AgentLoop(setup, tally=draft.tally)

    def _keep(self, loop: AgentLoop, tally: Tally) -> None:
        """However the run ended (a limit, an error, Ctrl-C): the conversation so far is kept."""
        if self._saves_steps():
            self.conversation.end_run(loop.history, steps=tally.steps, cost_usd=tally.cost_usd)
        elif self.parent_run_id is None:
            self.history = loop.history

    def _saves_steps(self) -> bool:
        """A sub-agent's conversation is not the workspace's, and a durable run is recorded by the runtime."""
        return self.parent_run_id is None and self.durability is None

    def emit(self, event: Event) -> None:
        """Record ``event`` in the traces and pass it on (also for work beside the loop: decompose)."""
        self.stores.traces.record(event.run_id, event.to_json())
        self.on_event(event)

    def child(self, settings: Settings, profile: str, *, parent_run_id: str) -> AgentSession:
        """A sub-agent's session: ``settings`` (already narrowed), this session's model, stores and approver.

        Its tools are those of ``profile`` that this session has too (never the sub-agent tools).
        """
        model, judge_model, tools = self.models.for_child(self.settings, profile)
        session = AgentSession(
            settings,
            model=model,
            approver=one_at_a_time(self.approver, self._approvals),
            on_event=self.on_event,
            stores=self.stores,
            tools=tools,
            judge_model=judge_model,
            parent_run_id=parent_run_id,
        )
        session.models.active_model, session.models.profile = self.active_model, profile
        return session

    async def compact(self, *, run_id: str | None = None, reason: str = "asked") -> Compaction | None:
        """Summarise the older turns into ``summary`` now (``/compact``); see ``compact_conversation``."""
        from chrysalis.capabilities.compaction.plugin import compact_conversation

        run_id = run_id or uuid.uuid4().hex[:12]
        return await compact_conversation(
            self.conversation, self.model, self.active_model, self.settings, self.stores, self.emit, run_id, reason
        )

    def reset_model(self) -> None:
        """Forget the built model so the next run builds it from the (changed) settings."""
        self.models.reset(self.settings)

    def close(self) -> None:
        """Close the capabilities (telemetry flushes) and the stores this session opened."""
        for capability in self.capabilities:
            capability.close()
        if self._owns_stores:
            self.stores.close()

    @property
    def model(self) -> Model:
        """The model, built on first use so that a session with a bad model name fails only when it runs."""
        return self.models.model(self.settings)

    @property
    def active_model(self) -> str:
        """The model the latest run used (under ``auto``, the one picked), as recorded in the eval store."""
        return self.models.active_model

    @property
    def profile(self) -> str:
        """The tool profile of the latest run."""
        return self.models.profile

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The profile's built-in tools (capabilities add theirs per run)."""
        return self.models.tools

    @property
    def context_name(self) -> str:
        """Contexts are kept per workspace, so tool hints and history belong to one project."""
        return f"workspace:{self.settings.workspace}"

    @property
    def total_cost_usd(self) -> float:
        """USD spent by this session's runs (``/cost``)."""
        return self.totals.cost_usd

    @property
    def total_tokens(self) -> int:
        """Tokens used by this session's runs (``/cost``)."""
        return self.totals.tokens

    @property
    def history(self) -> list[ModelMessage]:
        """The conversation so far, as the next run's model will see it."""
        return self.conversation.history

    @history.setter
    def history(self, messages: list[ModelMessage]) -> None:
        self.conversation.history = messages

    @property
    def session_id(self) -> str | None:
        """The stored session this conversation is (``stores/sessions.py``); None until its first run."""
        return self.conversation.session_id
