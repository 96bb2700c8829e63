"""One agent run: task in, events out, records kept, limits enforced.

``AgentSession`` holds what lives across the turns of a conversation (model, stores, message
history); ``AgentSession.run`` drives one task through pydantic-ai's graph node by node so it
can count steps, price them, stop on a limit with a clear reason, and keep the stores
consistent whatever happens (``finally`` writes the eval record and closes the trace).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chrysalis.agent.events import ErrorEvent, Event, Final, RedFlag, Start, TextDelta
from chrysalis.agent.guards import RunGuards
from chrysalis.agent.learning import ProfileChoice, choose_profile, default_profile
from chrysalis.agent.prompts import AGENT_CONTEXT, build_system_prompt
from chrysalis.agent.toolset import Approver, GatedTools, RunLimits
from chrysalis.config import Settings
from chrysalis.errors import ChrysalisError, ModelError, TaskStopped, UsageError
from chrysalis.stores import Stores
from chrysalis.stores.context import Context
from chrysalis.tools.base import ToolContext, ToolError, ToolSpec
from chrysalis.tools.policy import mode_allows
from chrysalis.tools.registry import profile_tools

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model

    from chrysalis.llm.routing import RoutingChoice

__all__ = ["AgentSession", "RunResult", "task_type"]


@dataclass(frozen=True)
class RunResult:
    """What one run produced and cost."""

    run_id: str
    output: str
    success: bool
    steps: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_ms: float
    problem: str | None = None
    """Set when the model answered but its change is unchecked or failing (then ``success`` is False)."""


@dataclass
class _RunTally:
    run_id: str
    started: float = field(default_factory=time.perf_counter)
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unverified: str | None = None
    """Why the answer cannot count as done (the change is unchecked or its check fails), if so."""

    @property
    def duration_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 1)


def _has_user_prompt(message: ModelMessage) -> bool:
    return any(part.part_kind == "user-prompt" for part in message.parts)


def _can_stream(model: Model) -> bool:
    """Every provider model streams; a test's ``FunctionModel`` only when given a ``stream_function``."""
    from pydantic_ai.models.function import FunctionModel

    return not isinstance(model, FunctionModel) or model.stream_function is not None


def _text_of(event: Any) -> str:
    """The text a streamed reply event adds (a new text part or a delta to one), else ``""``."""
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return event.part.content
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return event.delta.content_delta
    return ""


def _text_of_response(response: ModelResponse) -> str:
    """A whole response's text, for models that do not stream."""
    return "".join(part.content for part in response.parts if part.part_kind == "text")


def tool_profile(settings: Settings, *, model_given: bool = False) -> str:
    """The tool profile before anything is learned: the embedded models do better with fewer, coding-only tools."""
    if settings.profile != "auto":
        return settings.profile
    return default_profile(settings.model, model_given=model_given)


def task_type(task: str) -> str:
    """A coarse task category for the eval store, so success rates can be compared per kind of task."""
    words = task.lower()
    for kind, keys in (
        ("fix", ("fix", "bug", "failing", "error", "broken")),
        ("test", ("test",)),
        ("refactor", ("refactor", "rename", "clean")),
        ("explain", ("explain", "what", "why", "how", "describe", "?")),
        ("write", ("write", "add", "create", "implement")),
    ):
        if any(k in words for k in keys):
            return kind
    return "other"


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
    ) -> None:
        """Prepare a session; with ``model = "auto"`` the candidate models are checked now.

        Raises:
            ConfigError: ``model`` is ``auto`` and ``auto_models`` holds a bad value.
        """
        self.settings = settings
        self._model = model
        self._model_given = model is not None
        self._built_for: str | None = None
        self._rng = rng or random.Random()
        """Draws for ``auto`` model routing; pass ``random.Random(seed)`` for reproducible picks."""
        self._candidates = self._auto_candidates()
        self.active_model = settings.model
        """The model the latest run used (under ``auto``, the one picked), as recorded in the eval store."""
        self.approver = approver
        self.on_event = on_event or (lambda _event: None)
        self.stores = stores or Stores.open(settings.home)
        self._owns_stores = stores is None
        self._tools_given = tools is not None
        self.profile = "custom" if tools is not None else tool_profile(settings, model_given=model is not None)
        self.tools = tools if tools is not None else profile_tools(self.profile)
        self.history: list[ModelMessage] = []
        self.total_cost_usd = 0.0
        self.total_tokens = 0
        self.last_run_id: str | None = None

    @property
    def model(self) -> Model:
        """The model, built on first use so that a session with a bad model name fails only when it runs.

        Under ``auto`` it is rebuilt when a run picks a different model than the last.
        """
        if self._model is None or (not self._model_given and self._built_for != self.active_model):
            from chrysalis.llm.providers import build_model

            self._model = build_model(dataclasses.replace(self.settings, model=self.active_model))
            self._built_for = self.active_model
        return self._model

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
        self._candidates = self._auto_candidates()
        if not self._tools_given:
            self.profile = tool_profile(self.settings)
            self.tools = profile_tools(self.profile)

    def compact(self) -> int:
        """Keep only the last task and its answer; the model then starts with a short history."""
        starts = [i for i, m in enumerate(self.history) if m.kind == "request" and _has_user_prompt(m)]
        if starts:
            self.history = self.history[starts[-1] :]
        return len(self.history)

    def close(self) -> None:
        """Close the stores this session opened."""
        if self._owns_stores:
            self.stores.close()

    def _emit(self, event: Event) -> None:
        self.stores.traces.record(event.run_id, event.to_json())
        self.on_event(event)

    def _auto_candidates(self) -> tuple[str, ...]:
        """The models ``auto`` picks among (checked now, so a bad ``auto_models`` fails before any run)."""
        from chrysalis.llm.routing import AUTO, auto_candidates

        if self._model_given or self.settings.model != AUTO:
            return ()
        return auto_candidates(self.settings)

    def _choose(self, kind: str) -> tuple[RoutingChoice | None, ProfileChoice]:
        """Pick this run's model (under ``auto``) and tool profile from the eval store; set them on the session."""
        routing = None
        if self._candidates:
            from chrysalis.llm.routing import ModelRouter

            routing = ModelRouter(self.stores.evals).choose(kind, self._candidates, rng=self._rng)
        self.active_model = routing.model if routing else self.settings.model
        if self._tools_given:
            return routing, ProfileChoice(self.profile, "tools given by the caller")
        choice = choose_profile(self.settings, task_type=kind, model=self.active_model, evals=self.stores.evals,
                                model_given=self._model_given)  # fmt: skip
        if choice.profile != self.profile:
            self.profile, self.tools = choice.profile, profile_tools(choice.profile)
        return routing, choice

    def _start(self, run_id: str, task: str) -> None:
        s = self.settings
        kind = task_type(task)
        routing, profile = self._choose(kind)
        self._emit(Start(
            run_id=run_id, task=task, model=self.active_model, mode=s.mode, level=s.level, workspace=str(s.workspace),
            task_type=kind, profile=profile.profile, profile_reason=profile.reason,
            model_reason=routing.explain() if routing else None,
            candidates=tuple(p.to_json() for p in routing.posteriors) if routing else None,
        ))  # fmt: skip

    async def run(self, task: str) -> RunResult:
        """Run one task to its end; raises a ``ChrysalisError`` subclass when it cannot finish."""
        tally = _RunTally(run_id=uuid.uuid4().hex[:12])
        self.last_run_id = tally.run_id
        s = self.settings
        self._start(tally.run_id, task)
        success = False
        try:
            async with asyncio.timeout(s.timeout):
                output = await self._drive(task, self.model, tally)
            success = tally.unverified is None
        except TimeoutError as exc:
            raise self._stopped(tally, "timeout", f"The run took longer than --timeout {s.timeout:g} s.") from exc
        except ChrysalisError as exc:
            reason = exc.reason if isinstance(exc, TaskStopped) else type(exc).__name__
            self._emit(ErrorEvent(run_id=tally.run_id, reason=reason, message=str(exc),
                                  exit_code=exc.exit_code, steps=tally.steps))  # fmt: skip
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._emit(ErrorEvent(run_id=tally.run_id, reason="interrupted", message="Interrupted by the user.",
                                  exit_code=130, steps=tally.steps))  # fmt: skip
            raise
        except Exception as exc:
            raise self._model_failure(tally, exc) from exc
        finally:
            self._record_eval(task, tally, success)
        result = RunResult(tally.run_id, output, success, tally.steps, tally.input_tokens, tally.output_tokens,
                           tally.cost_usd, tally.duration_ms, tally.unverified)  # fmt: skip
        self._emit(Final(**dataclasses.asdict(result)))  # the same numbers (one clock reading) in both
        return result

    def _stopped(self, tally: _RunTally, reason: str, message: str) -> TaskStopped:
        error = TaskStopped(reason, message)
        self._emit(ErrorEvent(run_id=tally.run_id, reason=reason, message=message, exit_code=error.exit_code,
                              steps=tally.steps))  # fmt: skip
        return error

    def _model_failure(self, tally: _RunTally, exc: Exception) -> ChrysalisError:
        from chrysalis.llm.providers import translate_model_error

        error: ChrysalisError | None = translate_model_error(exc)
        if error is None:
            error = ModelError(f"The run failed unexpectedly: {type(exc).__name__}: {exc}")
        self._emit(ErrorEvent(run_id=tally.run_id, reason=type(error).__name__, message=str(error),
                              exit_code=error.exit_code, steps=tally.steps))  # fmt: skip
        return error

    def _record_eval(self, task: str, tally: _RunTally, success: bool) -> None:
        self.total_cost_usd += tally.cost_usd
        self.total_tokens += tally.input_tokens + tally.output_tokens
        self.stores.evals.log(
            run_id=tally.run_id, profile=self.profile, task_type=task_type(task),
            model=self.active_model, success=success, duration_ms=tally.duration_ms, cost_usd=tally.cost_usd,
            input_tokens=tally.input_tokens, output_tokens=tally.output_tokens,
        )  # fmt: skip

    async def _drive(self, task: str, model: Model, tally: _RunTally) -> str:
        from pydantic_ai import Agent, ModelRetry
        from pydantic_ai.usage import UsageLimits

        s = self.settings
        guards = RunGuards()
        gated = self._gated_tools(tally.run_id, guards)
        context = self.stores.context.load(self.context_name)
        learned = self.stores.context.load(AGENT_CONTEXT)  # what `chrysalis evolve` kept
        hints = "\n".join(h for h in (learned.tool_hints.strip(), context.tool_hints.strip()) if h)
        system = build_system_prompt(s.workspace, s.mode, level=s.level, tool_hints=hints, lessons=learned.system)
        agent = Agent(model, instructions=system, tools=gated.pydantic_tools(), retries=3)
        can_run_commands = s.mode == "code" and s.level >= 1 and bool({"shell", "run_tests"} & set(gated.specs))

        @agent.output_validator
        def check_before_finishing(output: str) -> str:
            pretended = guards.pretended_call_feedback(output, gated.specs)
            if pretended:
                self._emit(RedFlag(run_id=tally.run_id, kind="call_as_text", detail=pretended))
                raise ModelRetry(pretended)
            feedback = guards.finish_feedback(can_run_commands)
            if feedback:
                self._emit(RedFlag(run_id=tally.run_id, kind="unchecked_finish", detail=feedback))
                raise ModelRetry(feedback)
            return output

        limits = UsageLimits(request_limit=None)
        streams = _can_stream(model)
        # Entering the agent opens (and on exit closes) the model's HTTP client within this event loop.
        async with agent, agent.iter(task, message_history=self.history, usage_limits=limits) as run:
            async for node in run:
                if Agent.is_model_request_node(node):
                    self._before_model_request(tally, guards)
                    if streams:
                        async with node.stream(run.ctx) as reply:
                            async for event in reply:
                                self._emit_text(tally.run_id, _text_of(event))
                elif Agent.is_call_tools_node(node):
                    self._after_model_response(tally, run.usage.input_tokens, run.usage.output_tokens)
                    gated.step = tally.steps
                    if not streams:
                        self._emit_text(tally.run_id, _text_of_response(node.model_response))
                    self._note_corrections(tally.run_id, node.model_response)
            assert run.result is not None
            self.history = list(run.result.all_messages())
            self._save_context(context, system)
            tally.unverified = guards.unverified_change(can_run_commands)
            return str(run.result.output)

    def _note_corrections(self, run_id: str, response: ModelResponse) -> None:
        """Trace the re-prompts the text protocol needed for this reply (malformed or unknown calls)."""
        details = response.provider_details or {}
        errors = details.get("errors") or []
        if details.get("corrections"):
            self._emit(RedFlag(run_id=run_id, kind="corrected_reply", detail="; ".join(map(str, errors))))

    def _emit_text(self, run_id: str, text: str) -> None:
        if text:
            self._emit(TextDelta(run_id=run_id, text=text))

    def _save_context(self, previous: Context, system: str) -> None:
        """Keep a new version of the session's context: prompt, mode, priority and the whole history."""
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        s = self.settings
        history = tuple(ModelMessagesTypeAdapter.dump_python(self.history, mode="json"))
        updated = dataclasses.replace(previous, system=system, mode=s.mode, priority=s.priority, history=history)
        self.stores.context.save(updated, self.context_name)

    def _gated_tools(self, run_id: str, guards: RunGuards) -> GatedTools:
        s = self.settings
        limits = RunLimits(level=s.level, mode=s.mode, auto_approve=s.yes, protect_tests=s.protect_tests)

        def before_write(path: Any) -> None:
            try:
                self.stores.checkpoints.snapshot(run_id, s.workspace, path)
            except UsageError as exc:  # too large to checkpoint: refuse the write, the model can choose otherwise
                raise ToolError(f"Not written: {exc}") from exc

        context = ToolContext(
            workspace=s.workspace, before_write=before_write, sandbox=s.level < 3, test_command=s.test_command
        )
        # A tool the mode can never allow is not offered (small models try whatever they are shown);
        # one above the run's level is, so that a call says which --level would allow it.
        offered = {name: spec for name, spec in self.tools.items() if mode_allows(spec, s.mode)}
        return GatedTools(offered, run_id=run_id, limits=limits, context=context, emit=self._emit,
                          approver=self.approver, guards=guards)  # fmt: skip

    def _before_model_request(self, tally: _RunTally, guards: RunGuards) -> None:
        s = self.settings
        if guards.stuck:
            raise TaskStopped("stuck", "The model kept repeating itself or breaking the rules; stopped the run.")
        if tally.steps >= s.max_steps:
            raise TaskStopped("max_steps", f"Reached --max-steps {s.max_steps} before the task was done.")
        tally.steps += 1

    def _after_model_response(self, tally: _RunTally, input_tokens: int, output_tokens: int) -> None:
        from chrysalis.llm.pricing import cost_usd

        tally.input_tokens, tally.output_tokens = input_tokens, output_tokens
        tally.cost_usd = cost_usd(self.active_model, input_tokens, output_tokens)
        budget = self.settings.budget
        if budget is not None and tally.cost_usd > budget:
            raise TaskStopped("budget", f"Spent ${tally.cost_usd:.4f}, over --budget ${budget:g}.")
