"""The MCP client: a real MCP server (tests/fixtures/mcp_demo_server.py, the SDK's MCPServer) serves the agent.

Every call the fixture answers is appended to a file, so a refused call is proven never to reach it.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.mcp.servers import server_states
from chrysalis.config import load_settings
from chrysalis.errors import UsageError
from chrysalis.events import Event, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.tools.mcp_config import load_mcp_config
from chrysalis.trust import add_trusted
from tests.helpers import assert_clean_error, chrysalis, run_agent

TASK = "shout hello"
DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_demo_server.py"


def demo_server(**extra: Any) -> dict[str, Any]:
    """The demo server as ``python -c SOURCE``: its sandbox does not show the tests' folder; calls go to its log."""
    return {"command": sys.executable, "args": ["-c", DEMO.read_text(encoding="utf-8")], **extra}


def server_log(name: str = "demo") -> Path:
    """Where a stdio server's stderr goes, and with it the demo server's record of its calls."""
    return Path(os.environ["CHRYSALIS_HOME"]) / "logs" / f"mcp-{name}.log"


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def calls_of(calls: Path) -> list[dict[str, Any]]:
    """The calls recorded in a server's log (``CALL {json}`` lines) or in the HTTP server's calls file."""
    lines = calls.read_text().splitlines() if calls.exists() else []
    if calls.suffix == ".log":
        lines = [line.removeprefix("CALL ") for line in lines if line.startswith("CALL ")]
    return [json.loads(line) for line in lines]


def results(events: list[Event]) -> list[ToolResultEvent]:
    return [e for e in events if isinstance(e, ToolResultEvent)]


def test_the_agent_calls_a_trusted_workspace_servers_tool(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    calls = server_log()
    write_config(workspace / ".mcp.json", {"demo": demo_server()})
    add_trusted(chrysalis_home / "config.toml", workspace)
    script = ScriptedModel([tool("mcp__demo__shout", text="hello"), final("done")])
    result, events = run_agent(workspace, script, TASK, level=3, yes=True)
    assert result.output == "done"
    [shout] = results(events)
    assert shout.ok and shout.result == "HELLO" and shout.decision == "allow"
    assert calls_of(calls) == [{"tool": "shout", "args": {"text": "hello"}}]
    offered = {t.name: t for t in script.infos[-1].function_tools}["mcp__demo__shout"]  # as last offered
    assert offered.description == "Return TEXT in capitals."
    assert offered.parameters_json_schema["required"] == ["text"]


def test_a_level_too_low_refuses_the_call_and_the_server_never_sees_it(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    calls = server_log()
    write_config(chrysalis_home / "mcp.json", {"demo": demo_server()})  # the user's own: no trust needed
    _, events = run_agent(
        workspace, ScriptedModel([tool("mcp__demo__shout", text="x"), final("gave up")]), TASK, level=2, yes=True
    )
    [refused] = results(events)
    assert not refused.ok and "needs security level 3" in (refused.error or "") and refused.decision == "denied"
    assert calls_of(calls) == []


def test_config_lowers_one_tools_level_and_an_error_result_is_a_failure(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    calls = server_log()
    servers = {"demo": demo_server(tools={"shout": {"level": 0}, "fail": {"level": 0}})}
    script = ScriptedModel([tool("mcp__demo__shout", text="a"), tool("mcp__demo__fail", message="boom"), final("ok")])
    settings = load_settings({"workspace": workspace, "level": 0})
    events: list[Event] = []
    session = AgentSession(settings, model=script.model(), on_event=events.append, mcp_servers=servers)
    try:
        asyncio.run(session.run("shout"))
    finally:
        session.close()
    shout, fail = results(events)
    assert shout.ok and shout.result == "A"
    assert not fail.ok and "boom" in (fail.error or "")
    assert [c["tool"] for c in calls_of(calls)] == ["shout", "fail"]


def test_an_untrusted_folders_servers_are_not_started_and_the_user_is_told_how(
    workspace: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls = server_log()
    write_config(workspace / ".chrysalis" / "mcp.json", {"demo": demo_server()})
    config = load_mcp_config(load_settings({"workspace": workspace}))
    assert config.servers == () and [s.name for s in config.untrusted] == ["demo"]
    _, events = run_agent(
        workspace, ScriptedModel([tool("mcp__demo__shout", text="x"), final("no")]), TASK, level=3, yes=True
    )
    assert not any(e.ok for e in results(events))  # not offered: pydantic-ai tells the model it is unknown
    assert calls_of(calls) == []
    assert "chrysalis trust" in caplog.text and "not a trusted folder" in caplog.text


def test_bad_json_names_the_file_line_and_column(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text('{"mcpServers": {\n  "demo": {"command": }\n}}')
    with pytest.raises(UsageError, match=r"\.mcp\.json:2:\d+: not valid JSON"):
        load_mcp_config(load_settings({"workspace": workspace}))
    done = chrysalis("mcp", "list", "--workspace", str(workspace))
    assert_clean_error(done, 2, ".mcp.json:2:", "not valid JSON")


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"args": ["x"]}, "exactly one of 'command'"),
        ({"command": "x", "level": 5}, "level must be"),
        ({"command": "x", "args": "a b"}, "args must be a list"),
        ({"url": "http://h", "type": "sse"}, "'sse'"),
        ({"command": "x", "levle": 0}, "unknown key 'levle'; did you mean 'level'?"),
    ],
)
def test_a_bad_server_entry_names_the_file_and_key(workspace: Path, entry: dict[str, Any], needle: str) -> None:
    write_config(workspace / ".mcp.json", {"demo": entry})
    with pytest.raises(UsageError, match=r"mcpServers\.demo") as raised:
        load_mcp_config(load_settings({"workspace": workspace}))
    assert needle in str(raised.value) and ".mcp.json" in str(raised.value)


def test_another_clients_keys_in_a_server_entry_are_left_alone(workspace: Path, chrysalis_home: Path) -> None:
    write_config(chrysalis_home / "mcp.json", {"demo": {"command": "x", "disabled": False, "autoApprove": []}})
    (server,) = load_mcp_config(load_settings({"workspace": workspace})).servers
    assert server.command == "x"


def test_a_missing_command_stops_the_run_with_exit_2_naming_the_server(chrysalis_home: Path, workspace: Path) -> None:
    write_config(chrysalis_home / "mcp.json", {"ghost": {"command": "no-such-mcp-server-here"}})
    done = chrysalis(
        "run", "hi", "--workspace", str(workspace), "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    said = "".join((done.stdout + done.stderr).split())  # the error is rendered, wrapped at the terminal's width
    for needle in ("'ghost'", "no-such-mcp-server-here", str(chrysalis_home / "mcp.json"), "notfound"):
        assert needle in said, done.stdout + done.stderr


def test_a_server_that_never_answers_initialize_fails_within_its_timeout(workspace: Path, tmp_path: Path) -> None:
    silent = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"], "timeout": 1}
    settings = load_settings({"workspace": workspace})
    session = AgentSession(settings, model=ScriptedModel([final("x")]).model(), mcp_servers={"mute": silent})
    try:
        with pytest.raises(UsageError, match=r"'mute'.*did not answer initialize within 1 s"):
            asyncio.run(session.run("x"))
    finally:
        session.close()


def test_mcp_list_json_shows_each_server_its_tools_and_state(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    calls = server_log()
    write_config(
        chrysalis_home / "mcp.json",
        {"demo": demo_server(tools={"shout": {"level": 1}}), "ghost": {"command": "no-such-mcp-server-here"}},
    )
    write_config(workspace / ".mcp.json", {"repo": demo_server()})
    done = chrysalis("mcp", "list", "--json", "--workspace", str(workspace))
    assert done.returncode == 1, done.stderr  # a server failed
    servers = {s["name"]: s for s in json.loads(done.stdout)["servers"]}
    assert servers["demo"]["state"] == "ready"
    assert {t["name"]: t["level"] for t in servers["demo"]["tools"]} == {
        "mcp__demo__shout": 1,
        "mcp__demo__fail": 3,
        "mcp__demo__die": 3,
    }
    assert servers["ghost"]["state"].startswith("failed: ") and "no-such-mcp-server-here" in servers["ghost"]["state"]
    assert servers["repo"]["state"] == "not started: folder not trusted"
    assert servers["repo"]["source"] == str(workspace / ".mcp.json")
    assert calls_of(calls) == []  # listing calls no tool


def test_server_states_of_nothing_configured_is_empty(workspace: Path) -> None:
    assert asyncio.run(server_states(load_settings({"workspace": workspace}))) == []


def test_doctor_shows_each_servers_state_and_the_fix(workspace: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    write_config(
        chrysalis_home / "mcp.json",
        {"demo": demo_server(), "ghost": {"command": "no-such-mcp-server-here"}},
    )
    write_config(workspace / ".mcp.json", {"repo": {"command": "anything"}})
    report = json.loads(chrysalis("doctor", "--json", "--workspace", str(workspace)).stdout)
    servers = {s["name"]: s for s in report["mcp_servers"]}
    assert servers["demo"]["state"] == "ready" and servers["demo"]["tools"] == 3 and "fix" not in servers["demo"]
    assert servers["ghost"]["state"].startswith("failed") and "mcp.json" in servers["ghost"]["fix"]
    assert servers["repo"]["fix"] == f"chrysalis trust {workspace}"
    (workspace / ".mcp.json").write_text("{")
    text = chrysalis("doctor", "--workspace", str(workspace)).stdout
    assert "mcp servers:" in text and "not valid JSON" in text


def test_a_server_that_dies_mid_run_gives_a_failed_result_not_a_hang(workspace: Path, tmp_path: Path) -> None:
    calls = server_log()
    servers = {"demo": demo_server(level=0)}
    script = ScriptedModel([tool("mcp__demo__die"), tool("mcp__demo__shout", text="x"), final("ok")])
    settings = load_settings({"workspace": workspace, "level": 0})
    events: list[Event] = []
    session = AgentSession(settings, model=script.model(), on_event=events.append, mcp_servers=servers)
    try:
        result = asyncio.run(asyncio.wait_for(session.run("die"), 120))
    finally:
        session.close()
    assert result.output == "ok"
    die, shout = results(events)
    assert not die.ok and not shout.ok and "demo" in (shout.error or "")
    assert [c["tool"] for c in calls_of(calls)] == ["die"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], guard: float = 60.0) -> None:
    """Until the server accepts connections (a guard turns a server that never listens into a failure)."""
    deadline = time.monotonic() + guard
    while time.monotonic() < deadline:
        assert process.poll() is None, "the HTTP server exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listened on port {port} within {guard} s")


def test_a_streamable_http_server_by_url(workspace: Path, tmp_path: Path) -> None:
    calls, port = tmp_path / "calls.jsonl", free_port()
    process = subprocess.Popen(
        [sys.executable, str(DEMO), str(calls), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        servers = {
            "web": {
                "url": f"http://127.0.0.1:{port}/mcp",
                "tools": {"shout": {"level": 0}},
                "headers": {"X-Test": "${NO_SUCH_VAR:-yes}"},
            }
        }
        script = ScriptedModel([tool("mcp__web__shout", text="over http"), final("ok")])
        settings = load_settings({"workspace": workspace, "level": 0})
        events: list[Event] = []
        session = AgentSession(settings, model=script.model(), on_event=events.append, mcp_servers=servers)
        try:
            asyncio.run(asyncio.wait_for(session.run("shout"), 120))
        finally:
            session.close()
        [shout] = results(events)
        assert shout.ok and shout.result == "OVER HTTP"
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert calls_of(calls) == [{"tool": "shout", "args": {"text": "over http"}}]


def test_precedence_and_variables(workspace: Path, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_TOKEN", "t0k")
    write_config(chrysalis_home / "mcp.json", {"a": {"command": "user-a"}, "b": {"command": "user-b"}})
    write_config(workspace / ".mcp.json", {"b": {"command": "claude-b"}, "c": {"command": "claude-c"}})
    write_config(
        workspace / ".chrysalis" / "mcp.json",
        {"c": {"command": "ours-c", "args": ["--token=${DEMO_TOKEN}", "${UNSET_VAR:-dflt}"]}},
    )
    add_trusted(chrysalis_home / "config.toml", workspace)
    config = load_mcp_config(load_settings({"workspace": workspace}), {"a": {"url": "http://127.0.0.1:1/mcp"}})
    by_name = {s.name: s for s in config.servers}
    assert {n: s.target for n, s in by_name.items()} == {
        "a": "http://127.0.0.1:1/mcp",
        "b": "claude-b",
        "c": "ours-c --token=t0k dflt",
    }
    assert by_name["a"].source == "given by the caller" and by_name["c"].level == 3


def test_mcp_list_text(workspace: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    assert "No MCP servers configured" in chrysalis("mcp", "list", "--workspace", str(workspace)).stdout
    write_config(chrysalis_home / "mcp.json", {"demo": demo_server(level=1)})
    done = chrysalis("mcp", "list", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "state: ready" in done.stdout and "mcp__demo__shout  level 1  Return TEXT in capitals." in done.stdout
