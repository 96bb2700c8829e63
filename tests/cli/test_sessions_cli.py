"""``chrysalis run --continue/--resume/--fork`` and ``chrysalis sessions``, as a user runs them, on a scripted server.

The server records every request, so the tests check what the model really receives when a
stopped run is continued: the earlier task, the tool call and its result.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import CHRYSALIS, assert_clean_error, chrysalis, interrupted_run, scripted

HANG_GUARD = 300.0


def run_on(server: ScriptedOpenAIServer, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return chrysalis("run", *args, "--base-url", server.base_url, "--model", "scripted", "--workspace", str(workspace))


def contents(request: dict[str, Any], role: str) -> list[str]:
    return [str(m.get("content")) for m in request["messages"] if m["role"] == role]


def test_a_run_stopped_by_max_steps_is_continued_and_the_model_sees_the_earlier_turns(workspace: Path) -> None:
    script: list[ScriptedReply | str] = [ScriptedReply.tool_call("read_file", {"path": "calc.py"}), "it adds"]
    with ScriptedOpenAIServer(script, max_seconds=HANG_GUARD) as server:
        stopped = run_on(server, workspace, "what does calc.py do?", "--max-steps", "1", "--json")
        assert stopped.returncode == 1, stopped.stdout + stopped.stderr
        start = json.loads(stopped.stdout.splitlines()[0])
        assert start["type"] == "start" and start["session_id"]
        going_on = run_on(server, workspace, "go on: answer", "--continue", "--json")
    assert going_on.returncode == 0, going_on.stdout + going_on.stderr
    assert json.loads(going_on.stdout.splitlines()[0])["session_id"] == start["session_id"]
    last = server.requests[-1]
    assert contents(last, "user") == ["what does calc.py do?", "go on: answer"]
    assert any("return a + b" in text for text in contents(last, "tool"))  # the earlier run's tool result
    assert any(m["role"] == "assistant" and m.get("tool_calls") for m in last["messages"])


def test_a_run_interrupted_by_ctrl_c_is_continued_with_what_it_had_done(workspace: Path, chrysalis_home: Path) -> None:
    # The second reply is held until the run has exited, so Ctrl-C arrives while that request is in flight.
    script = [ScriptedReply.tool_call("read_file", {"path": "calc.py"}), ScriptedReply(text="late", held=True)]
    with ScriptedOpenAIServer(script, max_seconds=HANG_GUARD) as server:
        args = [
            "run",
            "look at calc.py",
            *scripted(server.base_url),
            "--workspace",
            str(workspace),
        ]
        reached, done = interrupted_run(args, server, after_requests=2, home=chrysalis_home, guard=HANG_GUARD)
    assert reached and done.returncode == 130, done.stdout + done.stderr

    with ScriptedOpenAIServer(["calc.py defines subtract, which adds"], max_seconds=HANG_GUARD) as later:
        going_on = run_on(later, workspace, "and what did you find?", "--continue")
    assert going_on.returncode == 0, going_on.stdout + going_on.stderr
    (request,) = later.requests
    assert contents(request, "user") == ["look at calc.py", "and what did you find?"]
    assert any("return a + b" in text for text in contents(request, "tool"))


def test_sessions_lists_and_exports_them(workspace: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(
        [ScriptedReply.tool_call("read_file", {"path": "calc.py"}), "it adds"], max_seconds=HANG_GUARD
    ) as server:
        done = run_on(server, workspace, "explain calc.py")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = chrysalis("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    (info,) = json.loads(listed.stdout)
    assert info["task"] == "explain calc.py" and info["workspace"] == str(workspace) and info["steps"] == 2
    assert set(info) >= {"id", "workspace", "task", "steps", "cost_usd", "updated"}
    table = chrysalis("sessions")
    assert info["id"] in table.stdout and "explain calc.py" in table.stdout

    markdown = chrysalis("sessions", "export", info["id"][:5])
    assert markdown.returncode == 0, markdown.stderr
    assert "## Task\n\nexplain calc.py" in markdown.stdout and "**→ read_file**" in markdown.stdout
    assert "return a + b" in markdown.stdout and "## Answer\n\nit adds" in markdown.stdout
    out = tmp_path / "session.json"
    exported = chrysalis("sessions", "export", info["id"], "--format", "json", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    data = json.loads(out.read_text())
    assert data["session"]["id"] == info["id"] and len(data["messages"]) == info["messages"]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["sessions", "export", "nope"], ["sessions export nope: no session 'nope'", "chrysalis sessions lists"]),
        (["sessions", "export", "x", "--format", "pdf"], ["--format pdf: unknown format; use markdown or json"]),
        (["run", "hi", "--resume", "nope"], ["--resume nope: no session 'nope'"]),
        (["run", "hi", "--continue"], ["--continue: there is no earlier session in"]),
        (["run", "hi", "--continue", "--fork", "abc"], ["--continue and --fork each pick a conversation"]),
        (["run", "hi", "--durable", "--continue"], ["--durable starts a new conversation"]),
        (["sessions", "--limit", "0"], ["--limit 0"]),
    ],
)
def test_bad_session_input_exits_2_naming_it(workspace: Path, args: list[str], needles: list[str]) -> None:
    assert_clean_error(
        chrysalis(*args, "--workspace", str(workspace)) if args[0] == "run" else chrysalis(*args), 2, *needles
    )


def test_a_bad_session_flag_in_json_mode_is_one_error_line(workspace: Path) -> None:
    done = chrysalis("run", "hi", "--resume", "nope", "--json", "--workspace", str(workspace))
    assert done.returncode == 2
    (line,) = done.stdout.splitlines()
    event = json.loads(line)
    assert event["type"] == "error" and event["exit_code"] == 2 and "no session 'nope'" in event["message"]


def test_the_help_names_the_session_flags() -> None:
    done = subprocess.run(
        [*CHRYSALIS, "run", "--help"], capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "200"}
    )
    assert all(flag in done.stdout for flag in ("--continue", "--resume", "--fork", "--subscribe"))
