"""One durable run on DBOS: every model reply, tool effect, check and approval is a recorded step.

A worker that dies mid-run leaves the workflow ``PENDING``; the worker that recovers it runs the
same code from the start, and DBOS hands back each recorded step's result instead of running it,
so the agent replays the same conversation up to the last completed step and goes on from there.

What happens to the one step that was running when the worker died (steps are at-least-once):

    model request  sent again (a reply costs tokens, but changes nothing)
    read tools     run again (no effect)
    writes         the files they may change were recorded when the effect started (``run_effects``);
                   they are put back as they were, then the write runs again: exactly once in effect
    commands       not run again: the model is told the command was interrupted and its effects may
                   be partial, and decides what to do (a shell command cannot be undone in general)
    approvals      the request is a recorded step, so a resumed run waits for the same request

Events get keys the replay computes again (``w<step>.<n>`` between steps, ``s<step>.<n>`` inside
one), so ``chrysalis show`` lists each event once however often the run was resumed.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from chrysalis.agent.durability import interrupted
from chrysalis.events import Check, ErrorEvent, Event
from chrysalis.runtime import crashpoints
from chrysalis.runtime.queue import approval_topic
from chrysalis.runtime.runs import RunStore
from chrysalis.tools.base import ToolResult, ToolSpec

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
    from pydantic_ai.settings import ModelSettings

    from chrysalis.agent.durability import Verdict
    from chrysalis.runtime.approvals import ApprovalStore

__all__ = ["DurableRun"]

T = TypeVar("T")

_RERUNNABLE = frozenset({"read", "network", "memory"})
"""Effects a repeated call cannot duplicate."""
_APPROVAL_WAIT_S = 600.0
"""How long one durable wait for a decision lasts before the request is looked at again (`approve` wakes it at once)."""
_in_step: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("chrysalis_in_step", default=None)
"""Inside a step: [its index, events emitted in it so far]."""


class DurableRun:
    """The ``Durability`` of one queued run, and the recorder of its events."""

    def __init__(
        self,
        run_id: str,
        workspace: Path,
        runs: RunStore,
        approvals: ApprovalStore,
        home: Path,
        waiting: dict[str, str] | None = None,
    ) -> None:
        self.run_id = run_id
        self.workspace = workspace
        self.runs = runs
        self.approvals = approvals
        self.home = home
        self._steps = 0
        """Steps this run has reached in this execution: the same numbers on every replay."""
        self._between = 0
        """Events emitted since the last step began (outside any step)."""
        self.waiting = waiting if waiting is not None else {}
        """The worker's runs now waiting for a person: run id → the approval request it waits for."""

    # Durability

    def wrap_model(self, model: Model) -> Model:
        """``model`` whose requests are recorded steps."""
        return _durable_model(model, self)

    async def tool(self, spec: ToolSpec, args: Any, run: Callable[[], Awaitable[ToolResult]]) -> ToolResult:
        """Run a gated call as a step; a write interrupted by a crash is undone and done again, a command is not."""
        where = f"{self.run_id}:tool:{spec.name}:{_digest(spec.name, args)}"
        if spec.effect in _RERUNNABLE:
            return await self.step(f"tool:{spec.name}", _crashing(run, where), where)

        async def effect() -> ToolResult:
            key = f"s{self._current()}"
            started = await asyncio.to_thread(self.runs.effect_started, self.run_id, key)
            replayable = _replayable(spec)
            if started is not None and not replayable:
                return interrupted(spec.name)
            if started is not None:
                await asyncio.to_thread(_restore, started)
            preimage = _preimage(self.workspace, spec.write_targets(args)) if replayable else {}
            await asyncio.to_thread(self.runs.start_effect, self.run_id, key, spec.name, preimage)
            return await _crashing(run, where)()

        return await self.step(f"tool:{spec.name}", effect, where)

    async def check(self, run: Callable[[str], tuple[Verdict, Check]], command: str) -> tuple[Verdict, Check]:
        """The final check as a step (its verdict is what the model was told, whatever the tests say now)."""

        async def checked() -> tuple[Verdict, Check]:
            return await asyncio.to_thread(run, command)

        where = f"{self.run_id}:check:{self._steps + 1}"
        return await self.step("check", _crashing(checked, where), where)

    async def once(self, name: str, decide: Callable[[], T]) -> T:
        """``decide()`` recorded as a step."""

        async def decided() -> T:
            return decide()

        return await self.step(name, decided)

    # approvals

    async def approver(self, tool: str, args: dict[str, Any], reason: str) -> bool:
        """Ask a person through a signed approval and wait durably; True once a verified envelope allows it.

        The run's status is ``waiting_approval`` meanwhile. A forged, altered, replayed, expired or
        wrong-key envelope is refused (``ApprovalStore.check`` logs why) and the run keeps waiting.
        """
        from dbos import DBOS

        request_id = await self.once("approval:request", lambda: self.approvals.request(self.run_id, tool, args).id)
        await asyncio.to_thread(self.runs.set_status, self.run_id, "waiting_approval")
        while True:
            decision = await self.once("approval:check", lambda: self._decision(request_id, tool, args))
            if decision is not None:
                await asyncio.to_thread(self.runs.set_status, self.run_id, "running")
                return decision == "allow"
            self.waiting[self.run_id] = request_id
            try:
                await DBOS.recv_async(topic=approval_topic(request_id), timeout_seconds=_APPROVAL_WAIT_S)
            finally:
                self.waiting.pop(self.run_id, None)

    def _decision(self, request_id: str, tool: str, args: dict[str, Any]) -> str | None:
        """``allow`` or ``deny`` once a verified envelope says so; None while undecided or refused."""
        from chrysalis.errors import UsageError
        from chrysalis.runtime.envelopes import Envelope
        from chrysalis.runtime.keys import load_public

        try:
            public_key = load_public(self.home)
        except UsageError:  # no key yet: nobody can have signed; `chrysalis approve` says to make one
            return None
        verdict = self.approvals.check(request_id, tool, args, public_key)
        return verdict.decision if isinstance(verdict, Envelope) else None

    # events

    def record(self, event: Event) -> None:
        """Keep ``event`` in ``run_events`` under a key the replay computes again (so never twice).

        A worker that stops cancels its runs, and the loop reports that as the user's interrupt; it is
        not part of the run (another worker resumes it), so it is not kept.
        """
        if isinstance(event, ErrorEvent) and event.reason == "interrupted":
            return
        inside = _in_step.get()
        if inside is not None:
            key = f"s{inside[0]}.{inside[1]}"
            inside[1] += 1
        else:
            key = f"w{self._steps}.{self._between}"
            self._between += 1
        self.runs.add_event(self.run_id, key, event.to_json())

    # steps

    async def step(self, name: str, body: Callable[[], Awaitable[T]], where: str | None = None) -> T:
        """Run ``body`` as the run's next DBOS step (its recorded result on replay).

        ``where`` names the step's kill points for the kill test (``crashpoints``): by what the step
        does, not by its number, so a call made again after a crash is not killed at the same place again.
        """
        from dbos import DBOS

        self._steps += 1
        self._between = 0
        index = self._steps
        crashpoints.point(f"{where or f'{self.run_id}:{name}:{index}'}:before")

        async def inside() -> T:
            token = _in_step.set([index, 0])
            try:
                return await body()
            finally:
                _in_step.reset(token)

        return await DBOS.run_step_async({"name": name}, inside)

    def _current(self) -> int:
        inside = _in_step.get()
        assert inside is not None, "only inside a step"
        return inside[0]


def _crashing(body: Callable[[], Awaitable[T]], where: str) -> Callable[[], Awaitable[T]]:
    """``body`` with kill points just before and just after it (``crashpoints``; off unless a test turns it on)."""

    async def wrapped() -> T:
        crashpoints.point(f"{where}:start")
        result = await body()
        crashpoints.point(f"{where}:done")
        return result

    return wrapped


def _digest(tool: str, args: Any) -> str:
    """A short fingerprint of one call (names its kill points)."""
    import hashlib
    import json

    dumped = args.model_dump(mode="json") if hasattr(args, "model_dump") else args
    return hashlib.sha256(json.dumps([tool, dumped], sort_keys=True, default=str).encode()).hexdigest()[:12]


def _replayable(spec: ToolSpec) -> bool:
    """A write whose every changed file is named by its arguments (so a pre-image can undo a partial one)."""
    return spec.effect == "write" and spec.arun is None and spec.name != "git_commit"


def _preimage(workspace: Path, targets: list[str]) -> dict[str, str | None]:
    """The files ``targets`` as they are now (base64), None for those that do not exist."""
    from chrysalis.tools.workspace import resolve

    image: dict[str, str | None] = {}
    for target in targets:
        try:
            path = resolve(workspace, target, for_write=True)
        except Exception:  # the tool refuses this path itself; nothing will be written there
            continue
        image[str(path)] = base64.b64encode(path.read_bytes()).decode() if path.is_file() else None
    return image


def _restore(image: dict[str, str | None]) -> None:
    """Put the files of a pre-image (absolute paths, from ``_preimage``) back as they were."""
    for name, content in image.items():
        path = Path(name)
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(content))


def _durable_model(model: Model, run: DurableRun) -> Model:
    """``model`` wrapped so each request is one of ``run``'s steps (a replay gets the recorded reply)."""
    from pydantic_ai.models import CompletedStreamedResponse
    from pydantic_ai.models.wrapper import WrapperModel

    class DurableModel(WrapperModel):
        async def request(
            self,
            messages: list[ModelMessage],
            model_settings: ModelSettings | None,
            model_request_parameters: ModelRequestParameters,
        ) -> ModelResponse:
            async def send() -> ModelResponse:
                return await self.wrapped.request(messages, model_settings, model_request_parameters)

            where = f"{run.run_id}:model:{len(messages)}"  # one more message each turn; the same when sent again
            return await run.step("model", _crashing(send, where), where)

        @asynccontextmanager
        async def request_stream(
            self,
            messages: list[ModelMessage],
            model_settings: ModelSettings | None,
            model_request_parameters: ModelRequestParameters,
            run_context: Any = None,
        ) -> AsyncIterator[StreamedResponse]:
            response = await self.request(messages, model_settings, model_request_parameters)
            yield CompletedStreamedResponse(
                response, model_request_parameters=model_request_parameters, replay_events=True
            )

    return DurableModel(model)
