"""Attacks from an MCP server's tools: it runs in the sandbox of commands, and its calls are undoable.

The server is a real stdio MCP server (the SDK's ``MCPServer``) given as ``python -c SOURCE``, whose
tools do what a hostile server would: write outside the workspace, read ``~/.ssh``, read the
environment's keys, open a socket. Each is confined (``chrysalis.tools.mcp_sandbox``).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chrysalis.errors import UsageError
from chrysalis.events import Event, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from chrysalis.trust import add_trusted
from tests.helpers import git, run_agent

SERVER = """
import os, socket
from pathlib import Path
from mcp.server.mcpserver import MCPServer

server = MCPServer("evil")

@server.tool(description="Write TEXT to PATH.")
def write(path: str, text: str) -> str:
    Path(path).expanduser().write_text(text)
    return "wrote"

@server.tool(description="Read PATH.")
def read(path: str) -> str:
    return Path(path).expanduser().read_text()

@server.tool(description="Whether NAME is set in the environment.")
def env(name: str) -> str:
    return "set" if name in os.environ else "unset"

@server.tool(description="Connect to HOST:PORT.")
def connect(host: str, port: int) -> str:
    socket.create_connection((host, port), timeout=5).close()
    return "connected"

server.run("stdio")
"""
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key-but-secret -----END"


def configure(home: Path, **entry: Any) -> None:
    server = {"command": sys.executable, "args": ["-c", SERVER], "level": 0, **entry}
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"evil": server}}), encoding="utf-8")


def call(workspace: Path, name: str, /, level: int = 3, **args: Any) -> ToolResultEvent:
    """One call of the evil server's tool ``name``: its result."""
    script = ScriptedModel([tool(f"mcp__evil__{name}", **args), final("done")])
    _, events = run_agent(workspace, script, "attack", level=level, yes=True)
    return only_result(events)


def only_result(events: list[Event]) -> ToolResultEvent:
    [result] = [e for e in events if isinstance(e, ToolResultEvent)]
    return result


def said(result: ToolResultEvent) -> str:
    return f"{result.result or ''} {result.error or ''}"


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback port that accepts connections (so a refused connect is the sandbox's doing)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        stop = threading.Event()

        def accept() -> None:
            server.settimeout(0.2)
            while not stop.is_set():
                try:
                    server.accept()[0].close()
                except OSError:
                    continue

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        yield server.getsockname()[1]
        stop.set()
        thread.join()


def test_a_write_outside_the_workspace_is_contained(workspace: Path, chrysalis_home: Path, tmp_path: Path) -> None:
    configure(chrysalis_home, level=2)  # a server that may write the workspace
    outside = tmp_path / "outside.txt"
    call(workspace, "write", path=str(outside), text="escaped")  # refused (Landlock) or into a private /tmp (bwrap)
    assert not outside.exists()
    inside = call(workspace, "write", path=str(workspace / "inside.txt"), text="ok")  # level 3: writable
    assert inside.ok and (workspace / "inside.txt").read_text() == "ok"


def test_below_level_2_the_server_sees_the_workspace_read_only(workspace: Path, chrysalis_home: Path) -> None:
    configure(chrysalis_home, level=2)
    result = call(workspace, "write", level=3, path=str(workspace / "calc.py"), text="x")
    assert result.ok  # sanity: at level 3 it may
    configure(chrysalis_home)  # all its tools level 0: read-only by its own entry
    refused = call(workspace, "write", level=3, path=str(workspace / "calc.py"), text="overwritten")
    assert not refused.ok and (workspace / "calc.py").read_text() == "x"


def test_the_users_ssh_key_does_not_come_back(
    workspace: Path, chrysalis_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "userhome"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(KEY)
    monkeypatch.setenv("HOME", str(home))
    configure(chrysalis_home)
    for path in (str(home / ".ssh" / "id_ed25519"), "~/.ssh/id_ed25519"):
        result = call(workspace, "read", path=path)
        assert not result.ok and "not-a-real-key" not in said(result)


def test_the_environments_keys_are_not_visible_unless_named(
    workspace: Path, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef0123456789abcdef")
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-0123456789abcdef")
    configure(chrysalis_home)
    assert call(workspace, "env", name="OPENAI_API_KEY").result == "unset"
    assert call(workspace, "env", name="SOME_SERVICE_TOKEN").result == "unset"
    configure(chrysalis_home, env=["SOME_SERVICE_TOKEN"])  # named in its entry: passed
    assert call(workspace, "env", name="SOME_SERVICE_TOKEN").result == "set"
    assert call(workspace, "env", name="OPENAI_API_KEY").result == "unset"


def test_a_socket_is_refused_without_network(workspace: Path, chrysalis_home: Path, listener: int) -> None:
    configure(chrysalis_home)
    result = call(workspace, "connect", host="127.0.0.1", port=listener)
    assert not result.ok and "connected" not in said(result)


def test_network_true_is_honoured_in_a_trusted_folder_only(
    workspace: Path, chrysalis_home: Path, listener: int
) -> None:
    configure(chrysalis_home, network=True)
    with pytest.raises(UsageError) as refused:  # the workspace is not trusted: the server is not started
        call(workspace, "connect", host="127.0.0.1", port=listener)
    assert '"network": true' in str(refused.value) and "chrysalis trust" in str(refused.value)
    add_trusted(chrysalis_home / "config.toml", workspace)
    assert call(workspace, "connect", host="127.0.0.1", port=listener).result == "connected"


def test_undo_restores_a_file_an_mcp_tool_wrote(tmp_path: Path, chrysalis_home: Path) -> None:
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        git(ws, *args)
    configure(chrysalis_home, level=2)
    script = ScriptedModel(
        [
            tool("mcp__evil__write", path="calc.py", text="broken\n"),
            tool("mcp__evil__write", path="new.txt", text="made by the server\n"),
            final("done"),
        ]
    )
    _, events = run_agent(ws, script, "attack", level=2, yes=True)  # level 2: writable, each call confirmed
    assert all(e.ok for e in events if isinstance(e, ToolResultEvent)), events
    assert (ws / "calc.py").read_text() == "broken\n"
    with Stores.open(chrysalis_home) as stores:
        report = stores.checkpoints.undo(ws)
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (ws / "new.txt").exists()
    assert {p.name for p in report.restored} >= {"calc.py", "new.txt"}
