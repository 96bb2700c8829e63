"""Telemetry: spans of runs, steps, model calls and tool calls; off costs nothing; OTLP really leaves the process."""

from __future__ import annotations

import asyncio
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.telemetry.spans import Telemetry, telemetry_for
from chrysalis.config import load_settings
from chrysalis.errors import ConfigError, UsageError
from chrysalis.events import Event, ModelCall, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores


@pytest.fixture
def spans() -> tuple[Telemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = Telemetry(provider.get_tracer("test"), provider)
    return telemetry, exporter


def run_with(
    workspace: Path, listener: Any, script: ScriptedModel, task: str = "look at calc", **flags: Any
) -> AgentSession:
    (workspace / "calc.py").write_text("def subtract(a, b):\n    return a - b\n")  # the final check passes at once
    session = AgentSession(load_settings({"workspace": workspace, **flags}), model=script.model(), on_event=listener)
    asyncio.run(session.run(task))
    return session


def by_name(exported: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [span for span in exported if span.name == name]


def test_a_run_is_a_tree_of_steps_model_calls_and_tool_calls(
    workspace: Path, spans: tuple[Telemetry, InMemorySpanExporter]
) -> None:
    telemetry, exporter = spans
    session = run_with(workspace, telemetry, ScriptedModel([tool("read_file", path="calc.py"), final("it adds")]))
    session.close()
    exported = exporter.get_finished_spans()
    (run,) = by_name(exported, "chrysalis.run")
    steps = by_name(exported, "chrysalis.step")
    calls = by_name(exported, "chrysalis.model_call")
    (read,) = by_name(exported, "chrysalis.tool read_file")
    assert len(steps) == len(calls) == 2
    assert all(step.parent is not None and step.parent.span_id == run.context.span_id for step in steps)
    assert {call.parent.span_id for call in calls if call.parent} == {step.context.span_id for step in steps}
    assert read.parent is not None and read.parent.span_id == steps[0].context.span_id
    assert read.attributes is not None and read.attributes["chrysalis.decision"] == "allow"
    assert calls[0].attributes is not None and int(str(calls[0].attributes["gen_ai.usage.input_tokens"])) > 0
    assert run.attributes is not None and run.attributes["chrysalis.success"] is True
    assert run.attributes["chrysalis.session_id"] == session.session_id
    assert run.start_time is not None and run.end_time is not None
    assert all(
        run.start_time <= s.start_time and s.end_time is not None and s.end_time <= run.end_time
        for s in exported
        if s is not run and s.start_time is not None
    )


def test_a_tool_the_policy_refuses_is_a_span_that_says_denied(
    workspace: Path, spans: tuple[Telemetry, InMemorySpanExporter]
) -> None:
    telemetry, exporter = spans
    events: list[Event] = []

    def both(event: Event) -> None:
        events.append(event)
        telemetry(event)

    script = ScriptedModel([tool("shell", command="ls"), final("could not")])
    run_with(workspace, both, script, level=0).close()
    (shell,) = by_name(exporter.get_finished_spans(), "chrysalis.tool shell")
    assert shell.attributes is not None and shell.attributes["chrysalis.decision"] == "denied"
    assert shell.status.status_code is StatusCode.ERROR
    (result,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert result.decision == "denied" and not result.ok


def test_each_model_call_is_traced_with_its_tokens_and_duration(workspace: Path, chrysalis_home: Path) -> None:
    events: list[Event] = []
    session = run_with(workspace, events.append, ScriptedModel([tool("read_file", path="calc.py"), final("it adds")]))
    session.close()
    calls = [e for e in events if isinstance(e, ModelCall)]
    assert [c.step for c in calls] == [1, 2] and all(c.duration_ms >= 0 and c.input_tokens > 0 for c in calls)
    assert calls[0].model == session.active_model
    with Stores.open(chrysalis_home) as stores:
        traced = [e for e in stores.traces.events(session.last_run_id or "") if e["type"] == "model_call"]
    assert len(traced) == 2 and {"input_tokens", "output_tokens", "cost_usd", "duration_ms"} <= set(traced[0])


def test_telemetry_console_prints_the_spans_on_stderr(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = run_with(workspace, None, ScriptedModel([final("hello")]), telemetry="console")
    session.close()
    err = capsys.readouterr().err
    names = [span["name"] for span in _json_objects(err)]
    assert names.count("chrysalis.run") == 1 and "chrysalis.model_call" in names


def _json_objects(text: str) -> list[dict[str, Any]]:
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) != -1:
        value, at = decoder.raw_decode(text, start)
        found.append(value)
    return found


class _Collector(http.server.BaseHTTPRequestHandler):
    posts: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Collector.posts.append((self.path, self.headers.get("Content-Type", ""), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_telemetry_otlp_sends_the_spans_to_the_collector(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Collector.posts = []
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        session = run_with(workspace, None, ScriptedModel([final("hello")]), telemetry="otlp")
        session.close()  # flushes the batch
    finally:
        server.shutdown()
        server.server_close()
    assert _Collector.posts, "no OTLP export reached the collector"
    assert {(path, content_type) for path, content_type, _ in _Collector.posts} == {
        ("/v1/traces", "application/x-protobuf")
    }
    requests = [ExportTraceServiceRequest.FromString(body) for _, _, body in _Collector.posts]
    names = {span.name for r in requests for rs in r.resource_spans for ss in rs.scope_spans for span in ss.spans}
    assert {"chrysalis.run", "chrysalis.step", "chrysalis.model_call"} <= names


def test_off_by_default_and_then_opentelemetrys_sdk_is_never_imported(workspace: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "from chrysalis.agent.session import AgentSession\n"
        "from chrysalis.config import load_settings\n"
        "from chrysalis.llm.testing import ScriptedModel, final\n"
        f"settings = load_settings({{'workspace': {str(workspace)!r}}})\n"
        "s = AgentSession(settings, model=ScriptedModel([final('x')]).model())\n"
        "asyncio.run(s.run('hi')); s.close()\n"
        "print(s.settings.telemetry, 'opentelemetry.sdk' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert done.stdout.split() == ["off", "False"]


def test_a_missing_sdk_or_a_bad_value_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # as if the extra were not installed
    with pytest.raises(UsageError, match=r"pip install 'chrysalis-forge\[telemetry\]'"):
        telemetry_for("console")
    with pytest.raises(ConfigError, match="one of off, console, otlp"):
        load_settings({"telemetry": "jaeger"})
    project = tmp_path / "untrusted"
    (project / ".chrysalis").mkdir(parents=True)
    (project / ".chrysalis" / "config.toml").write_text('telemetry = "otlp"\n')
    settings = load_settings({"workspace": project})
    assert settings.telemetry == "off" and any("telemetry" in warning for warning in settings.warnings)
