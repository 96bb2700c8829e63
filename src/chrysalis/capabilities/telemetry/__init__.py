"""Telemetry: OpenTelemetry spans of runs, steps, model and tool calls (``telemetry = console | otlp``)."""
