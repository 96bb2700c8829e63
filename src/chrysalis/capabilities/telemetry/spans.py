"""OpenTelemetry spans of the agent's runs, made from the events it already emits (seed 002's telemetry).

    chrysalis.run            a run, from its ``start`` to its ``final`` or ``error`` (a sub-agent's run is a child)
      chrysalis.step         one step: from a model request being sent to the next one (or the run's end)
        chrysalis.model_call the request and its reply: model, tokens, cost (``model_call`` events)
        chrysalis.tool       each tool call: tool, gate decision, ok, duration (``tool_call`` → ``tool_result``)

Events carry their own times, so spans get the real start and end times even though a model call's
event comes when its reply is in. Nothing here runs, and opentelemetry is not even imported, unless
``telemetry`` is ``console`` or ``otlp`` (off by default): a session then passes every event to a
``Telemetry`` beside its renderer. Spans go to a provider of our own, so an application that sets up
its own global provider keeps it; ``close`` flushes ours. The OTLP exporter reads the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_HEADERS`` variables.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError
from chrysalis.events import ErrorEvent, Event, ModelCall, RunResult, Start, ToolCall, ToolResultEvent

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

__all__ = ["Telemetry", "telemetry_for"]

SERVICE = "chrysalis"


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


@dataclass
class _Run:
    """The open spans of one run."""

    span: Span
    step: Span | None = None
    tools: dict[str, Span] = field(default_factory=dict[str, "Span"])


class Telemetry:
    """An event listener that turns one session's events (and its sub-agents') into spans."""

    def __init__(self, tracer: Tracer, provider: TracerProvider | None = None) -> None:
        """``provider`` is flushed and shut down by ``close`` (None: someone else owns it)."""
        self._tracer = tracer
        self._provider = provider
        self._runs: dict[str, _Run] = {}

    def __call__(self, event: Event) -> None:
        """Open, annotate or end the spans ``event`` speaks of; other events are ignored."""
        if isinstance(event, Start):
            self._start(event)
            return
        run = self._runs.get(event.run_id)
        if run is None:
            return
        if isinstance(event, ModelCall):
            self._model_call(run, event)
        elif isinstance(event, ToolCall):
            where = {"chrysalis.tool": event.tool, "chrysalis.step": event.step}
            run.tools[event.call_id] = self._span(f"chrysalis.tool {event.tool}", run.step or run.span, event.ts, where)
        elif isinstance(event, ToolResultEvent):
            self._tool_result(run, event)
        elif isinstance(event, RunResult | ErrorEvent):
            self._end(event)

    def close(self) -> None:
        """End the spans still open (a run cut short), then flush and shut down our provider."""
        from opentelemetry.trace import StatusCode

        for run_id in list(self._runs):
            run = self._runs.pop(run_id)
            for span in [*run.tools.values(), *([run.step] if run.step else [])]:
                span.end()
            run.span.set_status(StatusCode.ERROR, "the run did not end")
            run.span.end()
        if self._provider is not None:
            self._provider.shutdown()

    def _start(self, event: Start) -> None:
        parent = self._runs.get(event.parent_run_id or "")
        attributes = {
            "chrysalis.run_id": event.run_id,
            "chrysalis.task_type": event.task_type,
            "chrysalis.model": event.model,
            "chrysalis.mode": event.mode,
            "chrysalis.level": event.level,
            "chrysalis.profile": event.profile,
            "chrysalis.priority": event.priority,
            "chrysalis.workspace": event.workspace,
            "chrysalis.session_id": event.session_id or "",
        }
        span = self._span("chrysalis.run", parent.span if parent else None, event.ts, attributes)
        self._runs[event.run_id] = _Run(span)

    def _model_call(self, run: _Run, event: ModelCall) -> None:
        sent = event.ts - event.duration_ms / 1000
        if run.step is not None:
            run.step.end(end_time=_ns(sent))
        run.step = self._span("chrysalis.step", run.span, sent, {"chrysalis.step": event.step})
        call = self._span(
            "chrysalis.model_call",
            run.step,
            sent,
            {
                "gen_ai.request.model": event.model,
                "gen_ai.usage.input_tokens": event.input_tokens,
                "gen_ai.usage.output_tokens": event.output_tokens,
                "chrysalis.cost_usd": event.cost_usd,
                "chrysalis.duration_ms": event.duration_ms,
            },
        )
        call.end(end_time=_ns(event.ts))

    def _tool_result(self, run: _Run, event: ToolResultEvent) -> None:
        from opentelemetry.trace import StatusCode

        span = run.tools.pop(event.call_id, None)
        if span is None:
            return
        span.set_attributes(
            {"chrysalis.decision": event.decision, "chrysalis.ok": event.ok, "chrysalis.duration_ms": event.duration_ms}
        )
        if not event.ok:
            span.set_status(StatusCode.ERROR, (event.error or "")[:200])
        span.end(end_time=_ns(event.ts))

    def _end(self, event: RunResult | ErrorEvent) -> None:
        from opentelemetry.trace import StatusCode

        run = self._runs.pop(event.run_id)
        for span in run.tools.values():
            span.end(end_time=_ns(event.ts))
        if run.step is not None:
            run.step.end(end_time=_ns(event.ts))
        if isinstance(event, RunResult):
            run.span.set_attributes(
                {
                    "chrysalis.success": event.success,
                    "chrysalis.steps": event.steps,
                    "gen_ai.usage.input_tokens": event.input_tokens,
                    "gen_ai.usage.output_tokens": event.output_tokens,
                    "chrysalis.cost_usd": event.cost_usd,
                }
            )
            if not event.success:
                run.span.set_status(StatusCode.ERROR, (event.problem or "the check failed")[:200])
        else:
            run.span.set_attributes({"chrysalis.error": event.reason, "chrysalis.steps": event.steps})
            run.span.set_status(StatusCode.ERROR, event.message[:200])
        run.span.end(end_time=_ns(event.ts))

    def _span(self, name: str, parent: Span | None, start: float, attributes: dict[str, Any]) -> Span:
        from opentelemetry import trace

        context = trace.set_span_in_context(parent) if parent is not None else None
        return self._tracer.start_span(name, context=context, start_time=_ns(start), attributes=attributes)


def telemetry_for(kind: str) -> Telemetry:
    """A ``Telemetry`` exporting to ``kind``: ``console`` (JSON spans on stderr) or ``otlp`` (OTLP over HTTP).

    Raises:
        UsageError: the ``telemetry`` extra is not installed; the message says how to install it.
    """
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError as exc:
        raise UsageError(
            f"telemetry = {kind} needs OpenTelemetry's SDK: pip install 'chrysalis-forge[telemetry]' "
            "(or set telemetry = off)."
        ) from exc
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    if kind == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise UsageError(
                "telemetry = otlp needs the OTLP exporter: pip install 'chrysalis-forge[telemetry]'."
            ) from exc
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return Telemetry(provider.get_tracer("chrysalis"), provider)
