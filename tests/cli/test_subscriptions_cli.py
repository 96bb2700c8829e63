"""``chrysalis run --subscribe``, as a user runs it, on a scripted server that records what the model receives."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer
from chrysalis.stores import Stores
from tests.helpers import assert_clean_error, chrysalis

HANG_GUARD = 300.0


def system_message(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "system")


def test_subscribed_files_reach_the_model_fresh_and_last_across_continue(workspace: Path) -> None:
    with ScriptedOpenAIServer(["it adds", "now it subtracts"], max_seconds=HANG_GUARD) as server:
        base = ("--base-url", server.base_url, "--model", "scripted", "--workspace", str(workspace))
        first = chrysalis("run", "what does calc.py do?", *base, "--subscribe", "calc.py", "--subscribe", "docs/*.md")
        assert first.returncode == 0, first.stdout + first.stderr
        assert "warning: --subscribe docs/*.md: 'docs/*.md' matches no file now; kept" in first.stderr
        (workspace / "calc.py").write_text("def subtract(a, b):\n    return a - b\n")
        later = time.time() + 5
        os.utime(workspace / "calc.py", (later, later))
        (workspace / "docs").mkdir()
        (workspace / "docs" / "usage.md").write_text("# Usage\n")
        second = chrysalis("run", "and now?", *base, "--continue")
        assert second.returncode == 0, second.stdout + second.stderr
    before, after = (system_message(request) for request in server.requests)
    assert "[1] calc.py · modified " in before and "return a + b" in before
    assert "[2] docs/*.md · no file matches now" in before
    assert "return a - b" in after and "return a + b" not in after and "changed since the last task" in after
    assert "docs/usage.md · modified " in after and "# Usage" in after and "new since the last task" in after


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--subscribe", "../secrets.txt"], ["--subscribe ../secrets.txt: '../secrets.txt' uses '..' to leave"]),
        (["--subscribe", "/etc/passwd"], ["--subscribe /etc/passwd: '/etc/passwd' is an absolute path outside"]),
        (["--subscribe", "calc.py", "--subscribe", "nope.py"], ["--subscribe nope.py: 'nope.py' does not exist"]),
        (["--subscribe", "tests"], ["--subscribe tests: 'tests' is a folder; subscribe to a glob"]),
        (
            ["--subscribe", "calc.py", "--durable"],
            ["--durable starts a new conversation on a worker, without subscriptions: drop --subscribe"],
        ),
    ],
)
def test_bad_subscriptions_exit_2_naming_them_and_subscribe_nothing(
    workspace: Path, chrysalis_home: Path, args: list[str], needles: list[str]
) -> None:
    assert_clean_error(chrysalis("run", "hi", "--workspace", str(workspace), *args), 2, *needles)
    with Stores.open(chrysalis_home) as stores:  # no run began: no session, nothing subscribed
        assert stores.sessions.recent() == [] and stores.db.read("SELECT * FROM subscriptions") == []
