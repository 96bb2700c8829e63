"""The whole agent on the real embedded model: a real run, a real tool call, real records."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import Event, ToolCall, ToolResultEvent
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]


def test_the_agent_makes_a_real_tool_call_on_the_embedded_model(workspace: Path) -> None:
    events: list[Event] = []
    # Two steps: the tool call this test is about, and one more (an answer, or the step limit).
    settings = load_settings({"workspace": workspace, "model": f"local:{E2E_MODEL}", "level": 0, "max_steps": 2})
    session = AgentSession(settings, on_event=events.append)
    try:
        asyncio.run(session.run("Read calc.py with read_file and tell me what subtract returns."))
    except Exception as exc:  # a small model may not finish well; the tool call is what this test is about
        print(f"run ended with {type(exc).__name__}: {exc}")
    finally:
        session.close()
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert calls, [e.type for e in events]
    assert calls[0].tool in session.tools  # constrained decoding: only real tools can be named
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert results and any(r.ok for r in results)


def test_chrysalis_run_json_on_the_embedded_model(workspace: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "chrysalis",
            "run",
            "Use list_dir to list the files in the workspace.",
            "--json",
            "--model",
            f"local:{E2E_MODEL}",
            "--level",
            "0",
            "--max-steps",
            "4",
            "--workspace",
            str(workspace),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
    )
    assert "Traceback" not in done.stderr, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "start" and events[0]["model"] == f"local:{E2E_MODEL}"
    assert events[-1]["type"] in ("final", "error")
    assert done.returncode in (0, 1)
    assert any(e["type"] == "tool_call" for e in events)
