"""The warm process: runs handed to it behave as runs in their own process, and it never makes one fail."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.cli.daemon import wire
from chrysalis.cli.daemon.client import daemon_status
from chrysalis.config import DB_FILENAME
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, assert_clean_error, chrysalis


def _wait_until_gone(pid: int) -> None:
    """Wait (bounded) for a process that is not our child to exit: it is reparented, so no waitpid."""
    done = threading.Event()
    for _ in range(int(CLI_HANG_GUARD * 20)):
        if not Path(f"/proc/{pid}").exists() or "zombie" in _state(pid):
            return
        done.wait(0.05)
    pytest.fail(f"process {pid} is still running")


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return ""


@pytest.fixture
def daemon(chrysalis_home: Path) -> Iterator[int]:
    """A daemon serving this test's CHRYSALIS_HOME; stopped (and waited for) afterwards."""
    started = chrysalis("daemon", "start")
    assert started.returncode == 0, started.stdout + started.stderr
    status = daemon_status(chrysalis_home)
    assert status is not None
    pid = int(status["pid"])
    try:
        yield pid
    finally:
        chrysalis("daemon", "stop")
        _wait_until_gone(pid)


def _served(home: Path) -> int:
    status = daemon_status(home)
    assert status is not None, "the daemon is not running"
    return int(status["served"])


def _run_json(base_url: str, workspace: Path, env: dict[str, str] | None = None) -> list[dict[str, object]]:
    """``chrysalis run --json`` in ``workspace``; the model is ``bench`` unless ``env`` names one."""
    model = [] if env and "CHRYSALIS_MODEL" in env else ["--model", "bench"]
    done = chrysalis(
        "run", "say done", "--base-url", base_url, "--json", "--level", "0", *model, cwd=workspace, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_a_run_is_served_by_the_daemon_with_its_own_folder_and_environment(
    daemon: int, chrysalis_home: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    with ScriptedOpenAIServer(["done", "done"]) as server:
        events_one = _run_json(server.base_url, first, env={"CHRYSALIS_MODEL": "model-one"})
        events_two = _run_json(server.base_url, second, env={"CHRYSALIS_MODEL": "model-two"})
    assert _served(chrysalis_home) == 2  # both went through the daemon, not a process of their own
    assert [body["model"] for body in server.requests] == ["model-one", "model-two"]  # each its own environment
    assert events_one[0]["workspace"] == str(first.resolve())  # and its own working folder
    assert events_two[0]["workspace"] == str(second.resolve())
    assert events_two[-1]["type"] == "final"
    assert events_two[-1]["output"] == "done"
    runs = sqlite3.connect(chrysalis_home / DB_FILENAME).execute("SELECT count(*) FROM evals").fetchone()[0]
    assert runs == 2  # recorded in this home's stores, as a run in its own process would be


def test_a_usage_error_keeps_its_exit_code_and_message(daemon: int, chrysalis_home: Path) -> None:
    done = chrysalis("run", "say done", "--level", "7")
    assert_clean_error(done, 2, "level")
    assert _served(chrysalis_home) == 1


def test_ctrl_c_reaches_the_run_in_the_daemon(daemon: int, chrysalis_home: Path, workspace: Path) -> None:
    model = f"held-{uuid.uuid4().hex[:8]}"
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # see test_interrupt.py: hearable Ctrl-C
    try:
        with ScriptedOpenAIServer([ScriptedReply(text="too late", held=True)], max_seconds=CLI_HANG_GUARD) as server:
            process = subprocess.Popen(
                [*CHRYSALIS, "run", "say hi", "--base-url", server.base_url, "--model", model],
                cwd=workspace,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )

            def stop_the_server_when_the_run_exits() -> None:
                process.wait()
                server.stop()

            threading.Thread(target=stop_the_server_when_the_run_exits, daemon=True).start()
            reached = server.wait_for_requests(1)
            if reached:
                process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=CLI_HANG_GUARD)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reached, out + err
    assert process.returncode == 130, out + err
    assert "Traceback" not in out + err
    assert _served(chrysalis_home) == 1
    assert '"reason": "interrupted"' in (chrysalis_home / "traces.jsonl").read_text()


def test_a_dead_daemons_socket_is_ignored(chrysalis_home: Path, workspace: Path) -> None:
    path = wire.socket_path(chrysalis_home)
    path.parent.mkdir(parents=True)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(path))  # bound and never listening: what a killed daemon leaves behind
    left.close()
    with ScriptedOpenAIServer(["done"]) as server:
        events = _run_json(server.base_url, workspace)
    assert events[-1]["output"] == "done"


def test_another_installation_is_refused_and_the_daemon_stays(daemon: int, chrysalis_home: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(wire.socket_path(chrysalis_home)))
        socket.send_fds(sock, [b"F"], [0, 1, 2])
        wire.send_message(sock, {"op": "run", "argv": ["--help"], "fingerprint": "not this code"})
        reply = wire.read_message(sock)
    assert reply == {"refused": "another installation of chrysalis"}
    assert _served(chrysalis_home) == 0


def test_start_status_stop(chrysalis_home: Path) -> None:
    assert chrysalis("daemon", "status").returncode == 1
    started = chrysalis("daemon", "start")
    assert started.returncode == 0, started.stderr
    again = chrysalis("daemon", "start")
    assert "already runs" in again.stdout
    status = json.loads(chrysalis("daemon", "status", "--json").stdout)
    assert status["running"] is True
    assert status["served"] == 0
    assert chrysalis("daemon", "stop").returncode == 0
    _wait_until_gone(int(status["pid"]))
    assert chrysalis("daemon", "status").returncode == 1
    assert not wire.socket_path(chrysalis_home).exists()


def test_a_bad_idle_value_names_the_flag(chrysalis_home: Path) -> None:
    assert_clean_error(chrysalis("daemon", "start", "--idle", "soon"), 2, "--idle", "soon")


def test_the_daemon_config_key_starts_one_beside_a_run(chrysalis_home: Path, workspace: Path) -> None:
    with ScriptedOpenAIServer(["done"]) as server:
        _run_json(server.base_url, workspace, env={"CHRYSALIS_DAEMON": "1"})
    ready = threading.Event()
    for _ in range(int(CLI_HANG_GUARD * 20)):
        if daemon_status(chrysalis_home) is not None:
            ready.set()
            break
        ready.wait(0.05)
    try:
        assert ready.is_set(), (chrysalis_home / "logs" / "daemon.log").read_text()
    finally:
        status = daemon_status(chrysalis_home)
        chrysalis("daemon", "stop")
        if status:
            _wait_until_gone(int(status["pid"]))


def test_the_fingerprint_changes_with_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = wire.code_fingerprint()
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(folder)])
    with_folder = wire.code_fingerprint()
    (folder / "__pycache__").mkdir()  # compiling a module is no change of code
    assert wire.code_fingerprint() == with_folder
    (folder / "pkg-1.1.dist-info").mkdir()  # installing or upgrading a package is
    assert len({before, with_folder, wire.code_fingerprint()}) == 3
