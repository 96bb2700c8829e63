"""Ctrl-C during a run: exit 130, the run is recorded as interrupted, the stores stay consistent."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

HANG_GUARD = 300.0
"""Seconds before a stuck run counts as a hang; a working run on a busy machine never gets near it."""


@pytest.fixture
def sigint_not_ignored() -> Iterator[None]:
    """Give the child a Ctrl-C it can hear, however this suite was started.

    A shell without job control starts background commands with SIGINT ignored, children inherit an
    ignored signal, and Python then never raises KeyboardInterrupt: the run would go on until its
    request timed out. (That is how this test failed under CI and `nohup … &`, not by a race.) A
    handler in this process is reset to the default in the child, so the child hears SIGINT.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("sigint_not_ignored")
def test_ctrl_c_exits_130_and_leaves_consistent_stores(workspace: Path, chrysalis_home: Path) -> None:
    # The reply is held until the run has exited, so SIGINT provably arrives while the model request is in flight.
    script = [ScriptedReply(text="too late", held=True)]
    model = f"held-{uuid.uuid4().hex[:8]}"  # tells this run's requests from a stray one another process sends the port
    with ScriptedOpenAIServer(script, max_seconds=HANG_GUARD) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "chrysalis", "run", "say hi", "--base-url", server.base_url, "--model", model,
             "--workspace", str(workspace)],
            env={**os.environ, "CHRYSALIS_HOME": str(chrysalis_home)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

        def stop_the_server_when_the_run_exits() -> None:  # a run that dies early ends the wait below at once
            process.wait()
            server.stop()

        threading.Thread(target=stop_the_server_when_the_run_exits, daemon=True).start()
        try:
            reached = server.wait_for_requests(1)
            if reached:
                process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=HANG_GUARD)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert reached, f"the run never reached the model:\n{out}{err}"

    ours = [body for body in server.requests if body.get("model") == model]
    assert len(ours) == 1, (process.returncode, server.requests, err)  # sent once, not retried after Ctrl-C
    assert process.returncode == 130, out + err
    assert "Traceback" not in out + err
    db = sqlite3.connect(chrysalis_home / "chrysalis.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    traces = (chrysalis_home / "traces.jsonl").read_text()
    assert '"reason": "interrupted"' in traces
    (runs,) = db.execute("SELECT count(*) FROM evals WHERE success = 0").fetchone()
    assert runs == 1
