"""A conversation with the agent in one workspace: what lives across runs, and how each run is set up.

``AgentSession`` holds the model (built on first use, rebuilt when ``auto`` picks another), the
stores, the message history the REPL carries from task to task, and the totals ``/cost`` shows.
Its conversation is a stored session (``stores/sessions.py``): created by the first run, saved after
every step, and picked up again by ``resume`` / ``fork`` / ``continue_latest`` (``chrysalis run
--continue``).
For each task it chooses the model and tool profile from the eval store (``learning``), checks
that a ``--budget`` can be enforced, builds the prompt and the gated tools, hands them to
``loop.AgentLoop``, and afterwards records the run (eval row, context version) however it ended.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from chrysalis.agent.choice import RunChoice, RunChooser
from chrysalis.agent.conversation import Conversation
from chrysalis.agent.durability import Durability
from chrysalis.agent.guards import RunGuards
from chrysalis.agent.judge import SecurityJudge
from chrysalis.agent.kg_tools import kg_tools
from chrysalis.agent.learning import ProfileChoice, task_type, tool_profile
from chrysalis.agent.loop import AgentLoop, RunSetup, Tally
from chrysalis.agent.mcp_tools import RunMcp
from chrysalis.agent.memory_tools import memory_prompt, memory_tools, open_memory
from chrysalis.agent.priority import plan_for
from chrysalis.agent.prompts import AGENT_CONTEXT, build_system_prompt
from chrysalis.agent.skills import discover_skills
from chrysalis.agent.subagents import SubAgents
from chrysalis.agent.subscriptions import subscription_tools
from chrysalis.agent.toolset import Approver, GatedTools
from chrysalis.config import Settings
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.events import Compacted, ErrorEvent, Event, Refine, RunResult, Start
from chrysalis.stores import SessionInfo, Stores
from chrysalis.stores.context import Context
from chrysalis.stores.memory import MemoryStore
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.registry import profile_tools

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from chrysalis.agent.compaction import Compaction
    from chrysalis.agent.telemetry import Telemetry
    from chrysalis.llm.routing import RoutingChoice

__all__ = ["AgentSession"]


class _Spent(NamedTuple):
    """What a run had spent at one moment (to record each model's part of a draft→refine run)."""

    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0


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
        """Prepare a session; with ``model = "auto"`` the candidate models are checked now.

        ``mcp_servers`` adds MCP servers to the configured ones, in ``mcp.json``'s ``mcpServers`` format.

        Raises:
            ConfigError: ``model`` is ``auto`` and ``auto_models`` holds a bad value.
        """
        self.settings = settings
        self.parent_run_id = parent_run_id
        """Set for a sub-agent's session: the run that spawned it (``chrysalis.agent.subagents``)."""
        self.durability = durability
        """Set for a durable run (``chrysalis.runtime``): replies, effects and checks are recorded, no sub-agents."""
        self._model = model if model is None or durability is None else durability.wrap_model(model)
        self._judge_model = judge_model
        """The security judge's model when given (tests); else built from ``settings.judge`` on first use."""
        self._model_given = model is not None
        self._built_for: str | None = None
        self._rng = rng or random.Random()
        """Draws for ``auto`` model routing; pass ``random.Random(seed)`` for reproducible picks."""
        self.active_model = settings.model
        """The model the latest run used (under ``auto``, the one picked), as recorded in the eval store."""
        self.approver = approver
        self._approvals = asyncio.Lock()
        """Sub-agents run concurrently; their questions to the user go one at a time."""
        self._telemetry = self._telemetry_for(settings, parent_run_id)
        self.on_event = _each(on_event, self._telemetry)
        self.stores = stores or Stores.open(settings.home)
        self._owns_stores = stores is None
        self._tools_given = tools is not None
        self._chooser = self._new_chooser()
        self.profile = "custom" if tools is not None else tool_profile(settings, model_given=model is not None)
        self.tools = tools if tools is not None else profile_tools(self.profile)
        self.conversation = Conversation(self.stores, settings.workspace)
        """The messages, their stored session and summary (``--continue``, ``--resume``, ``--fork``, ``/compact``)."""
        self.total_cost_usd = 0.0
        self.total_tokens = 0
        self.last_run_id: str | None = None
        self._subscribed = ("", "")
        """(run id, its subscriptions' prompt section): read once per run, so a refine step shows the same."""
        self.mcp = RunMcp(settings, mcp_servers, enabled=parent_run_id is None)  # started and stopped by each run

    @property
    def model(self) -> Model:
        """The model, built on first use so that a session with a bad model name fails only when it runs.

        Under ``auto`` it is rebuilt when a run picks a different model than the last.
        """
        if self._model is None or (not self._model_given and self._built_for != self.active_model):
            from chrysalis.llm.providers import build_model

            reasoning = plan_for(self.settings.priority).reasoning
            self._model = build_model(dataclasses.replace(self.settings, model=self.active_model), reasoning=reasoning)
            if self.durability is not None:
                self._model = self.durability.wrap_model(self._model)
            self._built_for = self.active_model
        return self._model

    def judge(self) -> SecurityJudge | None:
        """The security judge of the next run (``settings.judge``), or None when it is off.

        A judge naming the run's own model reuses it (one copy of local weights in memory).
        """
        name = self.settings.judge
        if name is None:
            return None
        if self._judge_model is None:
            self._judge_model = self.model if name == self.active_model else self._build_judge(name)
        return SecurityJudge(self._judge_model, name)

    def _build_judge(self, name: str) -> Model:
        """The judge's model, read like ``--model`` (with ``--base-url``, except for the embedded model)."""
        from chrysalis.llm.providers import build_model

        base_url = None if name.startswith("local:") else self.settings.base_url
        try:
            model = build_model(dataclasses.replace(self.settings, model=name, base_url=base_url))
        except UsageError as exc:
            raise UsageError(f"--judge {name}: {exc}".replace("--model", "--judge")) from exc
        return model if self.durability is None else self.durability.wrap_model(model)

    @property
    def context_name(self) -> str:
        """Contexts are kept per workspace, so tool hints and history belong to one project."""
        return f"workspace:{self.settings.workspace}"

    def reset_model(self) -> None:
        """Forget the built model so the next run builds it from the (changed) settings."""
        self._model = None
        self._model_given = False
        self._built_for = None
        self.active_model = self.settings.model
        self._chooser = self._new_chooser()
        if not self._tools_given:
            self.profile = tool_profile(self.settings)
            self.tools = profile_tools(self.profile)

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

    def resume(self, ref: str, *, flag: str = "--resume") -> SessionInfo:
        """Go on with stored session ``ref`` (an id or its prefix); see ``Conversation.resume``."""
        return self.conversation.resume(ref, flag=flag)

    def fork(self, ref: str) -> SessionInfo:
        """Go on in a copy of session ``ref``'s conversation; see ``Conversation.fork``."""
        return self.conversation.fork(ref)

    def continue_latest(self) -> SessionInfo:
        """Go on with this workspace's last session; see ``Conversation.continue_latest``."""
        return self.conversation.continue_latest()

    def _saves_steps(self) -> bool:
        """Whether this session's runs are saved as a stored conversation.

        A sub-agent's conversation is not the workspace's, and a durable run is recorded by the runtime.
        """
        return self.parent_run_id is None and self.durability is None

    async def compact(self, *, run_id: str | None = None, reason: str = "asked") -> Compaction | None:
        """Summarise the older turns with the model into ``summary``; keep the recent ones (``agent/compaction.py``).

        The summary is kept as a new version of the session's context, the shorter history replaces
        the stored one, the eval store records the summarising call, and a ``compaction`` event says
        what was done. None when there is nothing older than the kept turns to summarise.
        """
        from chrysalis.agent.compaction import Summariser

        run_id = run_id or uuid.uuid4().hex[:12]
        summariser = Summariser(self.model, self.active_model, self.settings.prices)
        done = await self.conversation.compact(summariser)
        if done is None:
            return None
        used = summariser.used
        self.stores.evals.log(
            run_id=run_id,
            profile="compaction",
            task_type="compaction",
            model=self.active_model,
            success=True,
            duration_ms=used.duration_ms,
            cost_usd=used.cost_usd,
            input_tokens=used.input_tokens,
            output_tokens=used.output_tokens,
        )
        self._emit(
            Compacted(
                run_id=run_id,
                turns_summarised=done.turns_summarised,
                reason=reason,
                tokens_before=done.tokens_before,
                tokens_after=done.tokens_after,
                summary_chars=len(done.summary),
            )
        )
        return done

    async def _compact_if_needed(self, run_id: str) -> None:
        """Compact before a run once the conversation fills ``compact_at`` of the model's window."""
        from chrysalis.agent.compaction import context_window

        limit = self.settings.compact_at * context_window(self.active_model, self.settings.home)
        if self.conversation.tokens() >= limit:
            await self.compact(run_id=run_id, reason="window")

    def child(self, settings: Settings, profile: str, *, parent_run_id: str) -> AgentSession:
        """A sub-agent's session: ``settings`` (already narrowed) and this session's model, stores and approver.

        Its tools are those of ``profile`` that this session has too (never the sub-agent tools).
        """
        wanted = profile_tools(profile)
        tools = {name: spec for name, spec in self.tools.items() if name in wanted}
        session = AgentSession(
            settings,
            model=self.model,
            approver=self._one_at_a_time(),
            on_event=self.on_event,
            stores=self.stores,
            tools=tools,
            judge_model=self._judge_model,
            parent_run_id=parent_run_id,
        )
        session.active_model = self.active_model
        session.profile = profile
        return session

    def _one_at_a_time(self) -> Approver | None:
        """This session's approver for its sub-agents: one question at a time, saying a sub-agent asks."""
        approver = self.approver
        if approver is None:
            return None
        lock = self._approvals

        async def ask(tool: str, args: dict[str, Any], reason: str) -> bool:
            async with lock:
                return await approver(tool, args, f"(a sub-agent asks) {reason}")

        return ask

    def close(self) -> None:
        """Close the stores this session opened, and flush its telemetry."""
        if self._telemetry is not None:
            self._telemetry.close()
        if self._owns_stores:
            self.stores.close()

    @staticmethod
    def _telemetry_for(settings: Settings, parent_run_id: str | None) -> Telemetry | None:
        """Spans of this session's runs when ``telemetry`` is on (a sub-agent's go through its parent's)."""
        if settings.telemetry == "off" or parent_run_id is not None:
            return None
        from chrysalis.agent.telemetry import telemetry_for

        return telemetry_for(settings.telemetry)

    async def run(self, task: str, *, run_id: str | None = None) -> RunResult:
        """Run one task to its end; raises a ``ChrysalisError`` subclass when it cannot finish.

        Under ``--model auto`` with a priority that refines, a run whose check fails goes on with a
        stronger model (seed 001's draft→refine chain): same run id, same limits, the draft's
        conversation and changes kept; a ``refine`` event says so and each model's part is recorded.

        Raises:
            ConfigError: a ``--budget`` is set for a model with no known price (before anything is sent).
        """
        run_id = run_id or uuid.uuid4().hex[:12]
        self._approvals = asyncio.Lock()  # one per run: a lock stays bound to the event loop it first waited in
        self.last_run_id = run_id
        kind = task_type(task)
        try:
            choice = await self._plan(kind)
            self._check_budget()
            saved = self._saves_steps()
            if saved:
                self.conversation.begin(task)
            self._emit(self._start_event(run_id, task, kind, choice))
            if self.parent_run_id is None:
                await self._compact_if_needed(run_id)
            tally = Tally()
            subagents = self._subagents(run_id, tally)
            await self.mcp.start()
            setup = self._setup(run_id, task, subagents)
            if saved:
                setup = dataclasses.replace(setup, on_history=self.conversation.save)
            loop = AgentLoop(setup, tally=tally)
        except BaseException as exc:
            if isinstance(exc, ChrysalisError):  # e.g. a bad model name or budget: shown like any other error
                self._emit(
                    ErrorEvent(run_id=run_id, reason=type(exc).__name__, message=str(exc), exit_code=exc.exit_code)
                )
            await self.mcp.stop()  # however the set-up failed (Ctrl-C included), no server outlives it
            raise
        success = False
        recorded, refiner = _Spent(), choice.refiner
        try:
            result = await loop.run(announce=refiner is None)
            if refiner is not None and not result.success:
                recorded = self._record_part(run_id, kind, tally, recorded, success=False)
                loop = self._refining(loop, task, refiner, result, subagents)
                result = await loop.run()
            elif refiner is not None:
                self._emit(result)
            success = result.success
            if self.parent_run_id is None:  # a sub-agent's conversation is not the workspace's
                self._save_context(loop.setup.instructions)
        finally:
            if subagents is not None:
                await subagents.close()
            await self.mcp.stop()
            self._record_part(run_id, kind, tally, recorded, success=success)
            if saved:  # however the run ended (a limit, an error, Ctrl-C): the conversation so far is kept
                self.conversation.end_run(loop.history, steps=tally.steps, cost_usd=tally.cost_usd)
            elif self.parent_run_id is None:
                self.history = loop.history
        return result

    async def _plan(self, kind: str) -> RunChoice:
        """The run's model, tool profile and refiner (``agent/choice.py``), applied to the session.

        The eval store moves on while a durable run waits or lies crashed; its resumed run must make
        the choices it made then, or its recorded steps would not fit. They are recorded as a plain tuple.
        """
        if self.durability is None:
            choice = self._chooser.choose(self.settings, kind, self.profile)
        else:

            def choose() -> tuple[RoutingChoice | None, ProfileChoice, str | None]:
                made = self._chooser.choose(self.settings, kind, self.profile)
                return made.routing, made.profile, made.refiner

            choice = RunChoice(*await self.durability.once("plan", choose))
        self._apply_choice(choice)
        return choice

    def _refining(
        self, draft: AgentLoop, task: str, refiner: str, result: RunResult, subagents: SubAgents | None
    ) -> AgentLoop:
        """The loop that takes over a failed draft: the stronger model, the draft's conversation, the same tally."""
        problem = result.problem or "its check failed"
        self._emit(Refine(run_id=draft.setup.run_id, draft_model=self.active_model, model=refiner, reason=problem))
        drafted_by, self.active_model = self.active_model, refiner
        handover = (
            f"A cheaper model ({drafted_by}) worked on this task first, in the conversation above; its changes are "
            f"still in the workspace, but the check failed: {problem}\n"
            f"You are a stronger model taking over. Review its changes, fix what is wrong, and finish the task: {task}"
        )
        self.history = draft.history
        setup = dataclasses.replace(
            self._setup(draft.setup.run_id, handover, subagents),
            history=draft.history,
            on_history=draft.setup.on_history,
        )
        return AgentLoop(setup, tally=draft.tally)

    def _subagents(self, run_id: str, tally: Tally) -> SubAgents | None:
        """The sub-agents of a run whose tools are all of them (the ``all`` profile); none for a sub-agent."""
        if self.parent_run_id is not None or self.profile != "all" or self.durability is not None:
            return None  # a durable run's records replay in order; concurrent sub-agents have none

        def charge(cost: float) -> None:
            tally.cost_usd += cost

        return SubAgents(self, run_id, spent=lambda: tally.cost_usd, charge=charge)

    def emit(self, event: Event) -> None:
        """Record ``event`` in the traces and pass it on (for callers that run work beside the loop: decompose)."""
        self._emit(event)

    def _emit(self, event: Event) -> None:
        self.stores.traces.record(event.run_id, event.to_json())
        self.on_event(event)

    def _setup(self, run_id: str, task: str, subagents: SubAgents | None = None) -> RunSetup:
        """The prompt (what ``chrysalis evolve`` learned, the skills), the gated tools and the price of this run."""
        from chrysalis.llm.pricing import cost_usd

        s, model_name = self.settings, self.active_model
        context = self.stores.context.load(self.context_name)
        learned = self.stores.context.load(AGENT_CONTEXT)
        hints = "\n".join(h for h in (learned.tool_hints.strip(), context.tool_hints.strip()) if h)
        plan = plan_for(s.priority)
        repair = self._repair(run_id)
        skills = discover_skills(s.workspace, s.home)  # a broken skill is left out (the CLI warns), never raised
        memory = open_memory(self.stores, s)
        memories = memory_prompt(memory, task, s.workspace, s.memory_tokens)
        system = build_system_prompt(
            s.workspace,
            s.mode,
            level=s.level,
            tool_hints=hints,
            lessons=learned.system,
            guidance=plan.guidance,
            skills=skills.prompt_section(),
            summary=self.conversation.summary if self.parent_run_id is None else "",
            subscriptions=self._subscriptions(run_id, memory),
            memories=memories,
        )
        offered = (
            self.tools
            | (subagents.tools() if subagents is not None else {})
            | repair
            | skills.tools()
            | self._memory(memory)
            | self.mcp.tools()
        )
        tools = GatedTools.for_run(
            s,
            offered,
            run_id=run_id,
            checkpoints=self.stores.checkpoints,
            emit=self._emit,
            approver=self.approver,
            guards=RunGuards(),
            judge=self.judge(),
            durability=self.durability,
        )

        def price(tokens_in: int, tokens_out: int) -> float:
            return cost_usd(model_name, tokens_in, tokens_out, s.prices)

        return RunSetup(
            run_id=run_id,
            task=task,
            settings=s,
            model=self.model,
            instructions=system,
            tools=tools,
            history=self.history,
            emit=self._emit,
            price=price,
            check_retries=plan.check_retries,
            durability=self.durability,
            model_name=model_name,
        )

    def _memory(self, memory: MemoryStore) -> dict[str, ToolSpec]:
        """The memory, knowledge graph and subscription tools, for the ``all`` profile and semantic mode.

        Not for the other profiles: a 1.5B model picks better among its six coding tools. Subscriptions
        belong to a stored conversation, so sub-agents and durable runs get none.
        """
        if self._tools_given or (self.profile != "all" and self.settings.mode != "semantic"):
            return {}
        subscriptions = subscription_tools(self.conversation.subscriptions) if self._saves_steps() else {}
        return memory_tools(memory) | kg_tools(self.stores.knowledge) | subscriptions

    def _subscriptions(self, run_id: str, memory: MemoryStore) -> str:
        """The run's section of the conversation's subscriptions, read fresh once per run (``agent/subscriptions``)."""
        if not self._saves_steps():
            return ""
        if self._subscribed[0] != run_id:
            text = self.conversation.subscriptions.prompt_section(memory, self.settings.subscription_chars)
            self._subscribed = (run_id, text)
        return self._subscribed[1]

    def _repair(self, run_id: str) -> dict[str, ToolSpec]:
        """The ``repair`` tool, for coding profiles whose model can be sampled directly and whose level may write."""
        from chrysalis.agent.repair_tool import has_sampling_path, pointing_to_repair, repair_tool

        s = self.settings
        if self._tools_given or self.profile not in ("coder", "all") or s.level < 2 or s.mode != "code":
            return {}
        if not has_sampling_path(self.active_model, s):
            return {}
        tools = {"repair": repair_tool(s, self.active_model, run_id, self.stores.checkpoints, self._emit)}
        if "run_tests" in self.tools:
            tools["run_tests"] = pointing_to_repair(self.tools["run_tests"])
        return tools

    def _check_budget(self) -> None:
        """A budget on a model whose price is unknown would never stop anything: refuse it up front."""
        from chrysalis.llm.pricing import check_budget

        s = self.settings
        check_budget(self.active_model, s.budget, s.prices, s.sources.get("budget", "budget"))

    def _new_chooser(self) -> RunChooser:
        """Run choices for the current settings (again after ``reset_model``: ``auto`` may be new)."""
        return RunChooser.for_session(
            self.settings,
            self.stores.evals,
            self._rng,
            model_given=self._model_given,
            tools_given=self._tools_given,
            sub_agent=self.parent_run_id is not None,
        )

    def _apply_choice(self, choice: RunChoice) -> None:
        """Use the chosen model and tool profile (also when a durable run's choice comes from its record)."""
        self.active_model = choice.routing.model if choice.routing else self.settings.model
        if not self._tools_given and choice.profile.profile != self.profile:
            self.profile, self.tools = choice.profile.profile, profile_tools(choice.profile.profile)

    def _start_event(self, run_id: str, task: str, kind: str, choice: RunChoice) -> Start:
        s, routing, profile = self.settings, choice.routing, choice.profile
        return Start(
            run_id=run_id,
            task=task,
            model=self.active_model,
            mode=s.mode,
            level=s.level,
            workspace=str(s.workspace),
            task_type=kind,
            profile=profile.profile,
            profile_reason=profile.reason,
            model_reason=routing.explain() if routing else None,
            candidates=tuple(p.to_json() for p in routing.posteriors) if routing else None,
            priority=s.priority,
            priority_plan=plan_for(s.priority).to_json(),
            parent_run_id=self.parent_run_id,
            refine_model=choice.refiner,
            session_id=self.session_id if self.parent_run_id is None else None,
        )

    def _record_part(self, run_id: str, kind: str, tally: Tally, before: _Spent, *, success: bool) -> _Spent:
        """Log the active model's part of a run (what ``tally`` grew by since ``before``) to the eval store.

        A run is one part, or two under a draft→refine chain: each model's record learns from its own part.
        Returns what the run has spent so far, the ``before`` of a next part.
        """
        now = _Spent(tally.cost_usd, tally.input_tokens, tally.output_tokens, tally.duration_ms)
        cost, tokens_in = now.cost_usd - before.cost_usd, now.input_tokens - before.input_tokens
        tokens_out = now.output_tokens - before.output_tokens
        self.total_cost_usd += cost
        self.total_tokens += tokens_in + tokens_out
        self.stores.evals.log(
            run_id=run_id,
            profile=self.profile,
            task_type=kind,
            model=self.active_model,
            success=success,
            duration_ms=now.duration_ms - before.duration_ms,
            cost_usd=cost,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
        )
        return now

    def _save_context(self, system: str) -> None:
        """Keep a new version of the workspace's context: prompt, mode and priority (the messages are the session's)."""
        s = self.settings
        previous: Context = self.stores.context.load(self.context_name)
        updated = dataclasses.replace(previous, system=system, mode=s.mode, priority=s.priority, history=())
        self.stores.context.save(updated, self.context_name)


def _each(*listeners: Callable[[Event], None] | None) -> Callable[[Event], None]:
    """One listener that passes each event to every one of ``listeners`` given."""
    given = [listener for listener in listeners if listener is not None]
    if len(given) == 1:
        return given[0]

    def each(event: Event) -> None:
        for listener in given:
            listener(event)

    return each
