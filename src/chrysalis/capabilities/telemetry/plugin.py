"""The telemetry plug-in: a listener that turns the session's events into spans, flushed when it closes."""

from __future__ import annotations

from chrysalis.capabilities.scope import NoHooks
from chrysalis.capabilities.telemetry.spans import Telemetry, telemetry_for
from chrysalis.config import Settings
from chrysalis.events import Event

__all__ = ["TelemetryPlugin"]


class TelemetryPlugin(NoHooks):
    """Spans of a session's runs; a sub-agent's runs reach them through its parent's events."""

    name = "telemetry"

    def __init__(self, settings: Settings) -> None:
        """Raises ``UsageError`` when the ``telemetry`` extra is missing (the message says how to install it)."""
        self.spans: Telemetry = telemetry_for(settings.telemetry)

    def on_event(self, event: Event) -> None:
        """Open, annotate or end the spans ``event`` speaks of."""
        self.spans(event)

    def close(self) -> None:
        """End the spans still open, flush and shut down the exporter."""
        self.spans.close()
