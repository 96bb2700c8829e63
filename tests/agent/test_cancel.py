"""A stopped run stops what it started: its command now, not at the command's own timeout.

The command opens a FIFO in the workspace before it sleeps, so the test knows it is running
(by opening the other end) without waiting on a clock.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from pathlib import Path

import pytest

from chrysalis.events import Event
from chrysalis.llm.testing import ScriptedModel, tool
from chrysalis.tools.base import ToolContext
from chrysalis.tools.shell import shell
from tests.helpers import processes_with, session_for, wait_until_no_process_with


def blocking_command(workspace: Path) -> tuple[str, str, Path]:
    """A command that signals through a FIFO, then sleeps for an hour; (command, marker, fifo)."""
    fifo = workspace / "running.fifo"
    os.mkfifo(fifo)
    seconds = 3000 + uuid.uuid4().int % 600  # the sleep's argument marks this test's process
    marker = f"sleep {seconds}"
    return f"echo running > running.fifo; {marker}", marker, fifo


def wait_for_fifo(fifo: Path) -> None:
    """Block until the command opens its end (the open returns only then) and read what it said."""
    with fifo.open() as reader:
        assert reader.read() == "running\n"


def test_stopping_a_runs_commands_kills_the_one_running_and_any_started_later(workspace: Path) -> None:
    command, marker, fifo = blocking_command(workspace)
    ctx = ToolContext(workspace=workspace, shell_timeout=3600.0)
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(shell({"command": command}, ctx).result))
    worker.start()
    wait_for_fifo(fifo)
    assert processes_with(marker)

    ctx.commands.stop_all()
    worker.join(timeout=60)  # a guard against a hang: the kill ends the command at once

    assert not worker.is_alive()
    assert results[0].startswith("Stopped: the run ended")
    wait_until_no_process_with(marker)
    later = shell({"command": "echo never"}, ctx).result
    assert later.startswith("Stopped: the run ended")
    assert len(ctx.commands) == 0


def test_a_cancelled_run_kills_the_command_its_tool_call_started(workspace: Path) -> None:
    command, marker, fifo = blocking_command(workspace)
    events: list[Event] = []
    session = session_for(workspace, ScriptedModel([tool("shell", command=command)]), events, level=3, yes=True)

    async def main() -> None:
        run = asyncio.create_task(session.run("run the command"))
        await asyncio.to_thread(wait_for_fifo, fifo)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        wait_until_no_process_with(marker)  # before asyncio.run's exit, which would wait for the worker thread

    try:
        asyncio.run(main())
    finally:
        session.close()
