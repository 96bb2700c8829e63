"""Ctrl-C during a run: exit 130, the run is recorded as interrupted, the stores stay consistent."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply


def test_ctrl_c_exits_130_and_leaves_consistent_stores(workspace: Path, chrysalis_home: Path) -> None:
    def slow_reply(body: dict[str, Any]) -> ScriptedReply:
        time.sleep(3)
        return ScriptedReply(text="too late")

    with ScriptedOpenAIServer(slow_reply, max_requests=2, max_seconds=20) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "chrysalis", "run", "say hi", "--base-url", server.base_url, "--model", "slow",
             "--workspace", str(workspace)],
            env={**os.environ, "CHRYSALIS_HOME": str(chrysalis_home)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.requests, "the run never reached the model"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)

    assert process.returncode == 130, out + err
    assert "Traceback" not in out + err
    db = sqlite3.connect(chrysalis_home / "chrysalis.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    traces = (chrysalis_home / "traces.jsonl").read_text()
    assert '"reason": "interrupted"' in traces
    (runs,) = db.execute("SELECT count(*) FROM evals WHERE success = 0").fetchone()
    assert runs == 1
