"""One agent run, in four words: run → step → model request → tool calls, with guards around each.

pydantic-ai drives a run as a graph of nodes; this file names them in our words:

    run            ``AgentLoop.run``: the limits (``--timeout``), and how the run ended (result or error event)
    step           a ``ModelRequestNode``: before it, ``_step`` checks ``--max-steps`` and the red flags
    model request  the request streams through ``ReplyStream`` (``text_delta`` events as text arrives)
    tool calls     a ``CallToolsNode``: ``_priced`` counts tokens and USD against ``--budget``, then
                   pydantic-ai runs the calls through ``GatedTools`` (policy, approval, checkpoint, guards)
    answer         ``End``: the answer passes ``_check_answer`` (a call written as text is refused; the
                   framework runs the project's tests itself, ``verify.FinalCheck``) or goes back to the model
    rescue         when the tests still fail at the answer, or the model stalls, the framework calls
                   ``repair`` itself before the run ends (``rescue.Rescue``)

Everything a run needs arrives ready in a ``RunSetup`` (the session chooses the model, builds the
prompt and the tools); everything it learns leaves in the ``RunResult``, the ``history`` and the ``tally``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chrysalis.agent.durability import Durability
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.rescue import Rescue
from chrysalis.agent.streaming import ReplyStream
from chrysalis.agent.toolset import GatedTools
from chrysalis.agent.verify import FinalCheck
from chrysalis.config import Settings
from chrysalis.errors import EXIT_INTERRUPTED, ChrysalisError, InternalError, TaskStopped, report_bug
from chrysalis.events import ErrorEvent, Event, ModelCall, RedFlag, RunResult

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequest
    from pydantic_ai.models import Model

__all__ = ["AgentLoop", "RunSetup", "Tally"]


@dataclass(frozen=True)
class RunSetup:
    """What one run needs, prepared by the session."""

    run_id: str
    task: str
    settings: Settings
    model: Model
    instructions: str
    tools: GatedTools
    history: list[ModelMessage]
    emit: Callable[[Event], None]
    price: Callable[[int, int], float]
    """USD for (input tokens, output tokens) so far on this run's model."""
    limits: RunLimits
    """When the run stops (steps, budget, time, red flags, failed checks, retries), built once per run."""
    durability: Durability | None = None
    """Records what steers the run (replies, effects, checks) so a crash can resume it; None: not durable."""
    model_name: str = ""
    """The model as the user named it (``local:qwen2.5-coder-1.5b``), for the ``model_call`` events."""
    on_history: Callable[[list[ModelMessage]], None] | None = None
    """Called with the conversation so far after every step (the session saves it: a stopped run loses nothing)."""


@dataclass
class Tally:
    """What the run has used so far; the session logs it to the eval store however the run ends."""

    started: float = field(default_factory=time.perf_counter)
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def duration_ms(self) -> float:
        """Milliseconds since the run started."""
        return round((time.perf_counter() - self.started) * 1000, 1)


class AgentLoop:
    """Drives one task to an answer or to a clear reason why not."""

    def __init__(self, setup: RunSetup, tally: Tally | None = None) -> None:
        self.setup = setup
        self.tally = tally or Tally()
        """What the run used; given by the session when sub-agents add their costs to it."""
        self.history = setup.history
        self.guards = setup.tools.guards
        self.check = FinalCheck(
            setup.settings,
            setup.run_id,
            setup.emit,
            setup.tools.command_snapshot,
            max_failures=setup.limits.check_retries,
            task=setup.task,
            durability=setup.durability,
            policy=setup.tools.policy,
            changed_paths=setup.tools.changed_paths,
        )
        self.stream = ReplyStream(setup.model, setup.run_id, setup.emit)
        self.rescue = Rescue(setup.run_id, setup.tools, self.check, setup.emit)
        self._usage = (0, 0)
        """This loop's tokens (in, out) as last counted: a tally shared with an earlier loop grows by the difference."""
        self._asked = time.perf_counter()
        """When the latest model request was sent (its ``model_call`` event says how long the reply took)."""

    async def run(self, *, announce: bool = True) -> RunResult:
        """Run the task; raises a ``ChrysalisError`` (after emitting an ``error`` event) when it cannot finish.

        ``announce=False`` leaves the ``final`` event to the caller (a draft that a stronger model may refine).
        """
        s, limits = self.setup.settings, self.setup.limits
        try:
            async with asyncio.timeout(limits.timeout_s):
                output = await self._steps()
        except TimeoutError as exc:
            raise self._ended(
                TaskStopped("timeout", f"The run took longer than --timeout {limits.timeout_s:g} s.")
            ) from exc
        except ChrysalisError as exc:
            self._ended(exc)
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._error("interrupted", "Interrupted by the user.", EXIT_INTERRUPTED)
            raise
        except Exception as exc:
            from chrysalis.llm.providers import translate_model_error

            error = translate_model_error(exc) or report_bug(exc, s.home, doing="running the task")
            raise self._ended(error) from exc
        t, verdict = self.tally, self.check.verdict
        result = RunResult(
            run_id=self.setup.run_id,
            output=output,
            success=verdict.verified is not False,
            steps=t.steps,
            input_tokens=t.input_tokens,
            output_tokens=t.output_tokens,
            cost_usd=t.cost_usd,
            duration_ms=t.duration_ms,
            verified=verdict.verified,
            problem=verdict.problem,
        )
        if announce:
            self.setup.emit(result)
        return result

    async def _steps(self) -> str:
        import pydantic_ai
        from pydantic_ai import Agent
        from pydantic_ai.usage import UsageLimits

        pydantic_ai.BANNER_ENABLED = False  # our renderer owns the terminal; no first-run banner of pydantic-ai's

        setup = self.setup
        agent = Agent(
            setup.model,
            instructions=setup.instructions,
            tools=setup.tools.pydantic_tools(),
            retries=setup.limits.model_retries,
        )
        agent.output_validator(self._check_answer)
        limits = UsageLimits(request_limit=None)  # ours are --max-steps, --budget and --timeout
        # Entering the agent opens (and on exit closes) the model's HTTP client within this event loop.
        async with agent, agent.iter(setup.task, message_history=setup.history, usage_limits=limits) as run:
            async for node in run:
                self._keep(run.all_messages(), node.request if Agent.is_model_request_node(node) else None)
                if Agent.is_model_request_node(node):
                    stop = self._stop()
                    if stop is not None:
                        return await self._rescued_or_raise(stop)
                    self.tally.steps += 1
                    self._asked = time.perf_counter()
                    await self.stream.request(node, run.ctx)
                elif Agent.is_call_tools_node(node):
                    self._priced(run.usage.input_tokens, run.usage.output_tokens)
                    self.stream.reply(node.model_response)
            assert run.result is not None  # the graph ended, so it has a result
            self.history = list(run.result.all_messages())
            if setup.on_history is not None:
                setup.on_history(self.history)
            return str(run.result.output)

    def _keep(self, messages: list[ModelMessage], request: ModelRequest | None) -> None:
        """The conversation so far, kept (and handed to ``on_history``) before each node runs.

        A model request node holds the ``request`` it is about to send (the tool results of the step
        before), which is not in the run's messages until it is sent; it is kept with them, so a run
        stopped now is continued with those results.
        """
        history = list(messages)
        if request is not None and not any(m is request for m in history):
            history.append(request)
        if len(history) != len(self.history) and self.setup.on_history is not None:
            self.setup.on_history(history)
        self.history = history

    def _stop(self) -> TaskStopped | None:
        """Before each model request: why a run that is stuck or out of steps must stop (None: go on)."""
        if self.guards.red_flags >= self.setup.limits.max_red_flags:
            return TaskStopped("stuck", "The model kept repeating itself or breaking the rules; stopped the run.")
        max_steps = self.setup.limits.max_steps
        if self.tally.steps >= max_steps:
            return TaskStopped("max_steps", f"Reached --max-steps {max_steps} before the task was done.")
        return None

    async def _rescued_or_raise(self, stop: TaskStopped) -> str:
        """The answer of a stalled run that the framework's own repair fixed; else the run stops with ``stop``."""
        done = await self.rescue.when_stalled(str(stop), self.guards)
        if done is None:
            raise stop
        return f"The model stalled ({stop}); Chrysalis ran repair itself and the tests pass now.\n{done}"

    def _priced(self, input_tokens: int, output_tokens: int) -> None:
        """After each model reply: count its tokens and stop a run that is over its budget.

        The tally grows by what is new since the last count, so costs added beside it (sub-agents) and
        an earlier loop's (the draft a stronger model refines) stay in it.
        """
        t = self.tally
        new_in, new_out = input_tokens - self._usage[0], output_tokens - self._usage[1]
        self._usage = (input_tokens, output_tokens)
        t.input_tokens += new_in
        t.output_tokens += new_out
        cost = self.setup.price(new_in, new_out)
        t.cost_usd += cost
        model = self.setup.model_name or self.setup.model.model_name
        self.setup.emit(
            ModelCall(
                run_id=self.setup.run_id,
                step=t.steps,
                model=model,
                input_tokens=new_in,
                output_tokens=new_out,
                cost_usd=cost,
                duration_ms=round((time.perf_counter() - self._asked) * 1000, 1),
            )
        )
        budget = self.setup.limits.budget_usd
        if budget is not None and t.cost_usd > budget:
            raise TaskStopped("budget", f"Spent ${t.cost_usd:.4f}, over --budget ${budget:g}.")

    async def _check_answer(self, output: str) -> str:
        """The final answer stands only if it is not a call written as text and the framework's check passes.

        A failed check goes back to the model with the test output (twice at most); after that the
        answer stands and the result says ``verified: false``.
        """
        from pydantic_ai import ModelRetry

        pretended = self.guards.pretended_call_feedback(output, self.setup.tools.specs)
        if pretended:
            self._red_flag("call_as_text", pretended)
            raise ModelRetry(pretended)
        await self.check.run(self.guards)
        done = await self.rescue.after_failed_check(self.guards)
        if done is not None:
            return f"{output}\n\nThe tests still failed after this answer; Chrysalis ran repair itself:\n{done}"
        feedback = self.check.feedback()
        if feedback:
            self._red_flag("failed_check", self.check.verdict.problem or "")
            raise ModelRetry(feedback)
        return output

    def _red_flag(self, kind: str, detail: str) -> None:
        self.guards.red_flags += 1
        self.setup.emit(RedFlag(run_id=self.setup.run_id, kind=kind, detail=detail))

    def _error(self, reason: str, message: str, exit_code: int) -> None:
        self.setup.emit(
            ErrorEvent(
                run_id=self.setup.run_id, reason=reason, message=message, exit_code=exit_code, steps=self.tally.steps
            )
        )

    def _ended(self, error: ChrysalisError) -> ChrysalisError:
        """Emit the ``error`` event for ``error`` and hand it back to be raised."""
        reason = error.reason if isinstance(error, TaskStopped) else type(error).__name__
        reason = "bug" if isinstance(error, InternalError) else reason
        self._error(reason, str(error), error.exit_code)
        return error
