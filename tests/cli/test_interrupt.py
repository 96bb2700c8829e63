"""Ctrl-C during a run: exit 130, the run is recorded as interrupted, the stores stay consistent."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import interrupted_run

HANG_GUARD = 300.0
"""Seconds before a stuck run counts as a hang; a working run on a busy machine never gets near it."""


def test_ctrl_c_exits_130_and_leaves_consistent_stores(workspace: Path, chrysalis_home: Path) -> None:
    # The reply is held until the run has exited, so SIGINT provably arrives while the model request is in flight.
    script = [ScriptedReply(text="too late", held=True)]
    model = f"held-{uuid.uuid4().hex[:8]}"  # tells this run's requests from a stray one another process sends the port
    with ScriptedOpenAIServer(script, max_seconds=HANG_GUARD) as server:
        args = ["run", "say hi", "--base-url", server.base_url, "--model", model, "--workspace", str(workspace)]
        reached, process = interrupted_run(args, server, after_requests=1, home=chrysalis_home, guard=HANG_GUARD)
    out, err = process.stdout, process.stderr
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
