"""A conversation with the agent in one workspace: what lives across runs, and the table of contents of a run.

``AgentSession`` keeps the settings, the stores, the stored conversation, the models (``agent/choice.py``),
the capabilities (``chrysalis.capabilities``), the web domains approved so far and the totals ``/cost``
shows. ``run`` reads as the steps of a run: ``agent/lifecycle.py`` sets it up and closes it, ``agent/loop.py``
runs it, ``agent/recording.py`` keeps it.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chrysalis.agent.choice import SessionModels
from chrysalis.agent.conversation import StoredConversation
from chrysalis.agent.durability import Durability
from chrysalis.agent.gate.approval import ApprovedDomains, Approver, one_at_a_time
from chrysalis.agent.lifecycle import RunLifecycle
from chrysalis.agent.recording import RunRecorder, Totals, save_context
from chrysalis.capabilities.registry import SessionFacts, capabilities_for, listeners
from chrysalis.events import Event, RunResult, fan_out

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from chrysalis.capabilities.compaction.summary import Compaction
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

        self.settings, self.parent_run_id, self.durability = settings, parent_run_id, durability
        self.approver, self._owns_stores = approver, stores is None
        self.stores = stores or Stores.open(settings.home)
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
        self.on_event = fan_out(*([on_event] if on_event is not None else []), *listeners(self.capabilities))
        self.conversation = StoredConversation(self.stores, settings.workspace)
        """The messages, their stored session and summary (``--continue``, ``--resume``, ``--fork``, ``/compact``)."""
        self.totals = Totals()
        self.domains = ApprovedDomains()
        """The web domains the user approved in this session: each run's policy asks about no other twice."""
        self.last_run_id: str | None = None
        self._approvals = asyncio.Lock()
        """Sub-agents run concurrently; their questions to the user go one at a time."""

    async def run(self, task: str, *, run_id: str | None = None) -> RunResult:
        """Run one task to its end; raises a ``ChrysalisError`` subclass when it cannot finish.

        Raises:
            ConfigError: a ``--budget`` is set for a model with no known price (before anything is sent).
        """
        run_id = run_id or uuid.uuid4().hex[:12]
        self.last_run_id, self._approvals, runs = run_id, asyncio.Lock(), RunLifecycle(self)
        recorder, success = RunRecorder(self.stores, self.totals, run_id, task), False
        scope = runs.scope(run_id, task, recorder.tally, self.settings)
        try:
            choice = await self.models.choose(self.settings, recorder.kind)
            scope = runs.scope(run_id, task, recorder.tally, self.settings)  # with the model and profile chosen
            await runs.begin(scope, recorder.kind, choice)
            loop = runs.loop(scope, recorder.tally)
        except BaseException as exc:
            await runs.abandon(scope, exc)
            raise
        try:
            result = await loop.run(announce=choice.refiner is None)
            if choice.refiner is not None and not result.success:
                recorder.part(profile=self.models.profile, model=self.active_model, success=False)
                loop = runs.refining(loop, scope, choice.refiner, result)
                result = await loop.run()
            elif choice.refiner is not None:
                self.emit(result)
            success = result.success
            if scope.conversation is not None:  # a sub-agent's conversation is not the workspace's
                save_context(self.stores, self.settings, loop.setup.instructions)
        finally:
            await runs.finish(scope)
            recorder.part(profile=self.models.profile, model=self.active_model, success=success)
            runs.keep(loop.history, recorder.tally)
        return result

    def emit(self, event: Event) -> None:
        """Record ``event`` in the traces and pass it on (also for work beside the loop: decompose)."""
        self.stores.traces.record(event.run_id, event.to_json())
        self.on_event(event)

    def child(self, settings: Settings, profile: str, *, parent_run_id: str, voter: int | None = None) -> AgentSession:
        """A sub-agent's session: ``settings`` (narrowed), this session's model and stores, its profile's tools.

        ``voter``: one of several runs voted on (a decomposition's ``vote`` op), sampling as that voter.
        """
        from chrysalis.llm.decorrelated import decorrelated

        model, judge_model, tools = self.models.for_child(self.settings, profile)
        session = AgentSession(
            settings,
            model=decorrelated(model, voter),
            approver=one_at_a_time(self.approver, self._approvals),
            on_event=self.on_event,
            stores=self.stores,
            tools=tools,
            judge_model=judge_model,
            parent_run_id=parent_run_id,
        )
        session.models.active_model, session.models.profile = self.active_model, profile
        session.domains = self.domains  # one person answers for the whole tree: a yes holds for every agent in it
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
    def tools(self) -> dict[str, ToolSpec]:
        """The profile's built-in tools (capabilities add theirs per run)."""
        return self.models.tools

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
