"""``chrysalis serve --http`` as a user starts it: a subprocess on a free port, spoken to over 127.0.0.1.

The test waits for the line that says where the service listens (the readiness signal), drives a run
against a scripted model through it, and stops it with Ctrl-C as a terminal would.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from chrysalis.llm.testing import ScriptedOpenAIServer
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, assert_clean_error, chrysalis

_SERVING = re.compile(r"serving on (http://\S+?) ")


def _ctrl_c_as_a_terminal() -> None:
    """A background job starts with SIGINT ignored; the child gets the default back, as from a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def serving(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen[str], list[str]]]:
    """``chrysalis serve --http --port 0 ARGS`` until it says where it serves; yields (url, process, stderr lines).

    On exit the process gets SIGINT (as Ctrl-C) if it still runs, and is waited for.
    """
    process = subprocess.Popen(
        [*CHRYSALIS, "serve", "--http", "--port", "0", *args],
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_ctrl_c_as_a_terminal,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=CLI_HANG_GUARD)
            assert line is not None, "".join(seen)
            seen.append(line)
            found = _SERVING.search(line)
            if found:
                break
        yield found.group(1), process, seen
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=CLI_HANG_GUARD)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        while (line := lines.get(timeout=CLI_HANG_GUARD)) is not None:
            seen.append(line)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def test_serve_http_runs_a_task_over_loopback_and_stops_on_ctrl_c(workspace: Path) -> None:
    with ScriptedOpenAIServer(["All fine."]) as model:
        with serving("--model", "openai:x", "--base-url", model.base_url, "--workspace", str(workspace)) as (
            url,
            process,
            stderr,
        ):
            assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
            with httpx.Client(base_url=url, timeout=CLI_HANG_GUARD) as client:
                created = client.post("/v1/runs", json={"task": "is everything fine?", "mode": "ask"})
                assert created.status_code == 202, created.text
                run_id = created.json()["id"]
                with client.stream("GET", f"/v1/runs/{run_id}/events") as events:
                    data = [json.loads(line[5:]) for line in events.iter_lines() if line.startswith("data:")]
                run = client.get(f"/v1/runs/{run_id}").json()
                assert client.post("/v1/runs", json={"task": " "}).json()["error"]["field"] == "task"
                assert client.get("/v1/runs/nope").status_code == 404
                assert client.get("/openapi.json").json()["info"]["title"] == "Chrysalis Forge"
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=CLI_HANG_GUARD) == 130
    assert data[0]["type"] == "start" and data[-2]["type"] == "final" and data[-1] == {"id": run_id, "status": "done"}
    assert run["status"] == "done" and run["answer"] == "All fine."
    text = "".join(stderr)
    assert "stopped" in text and "Traceback" not in text and "its worker runs 2 at a time" in text


def test_with_concurrency_0_the_service_only_queues(workspace: Path) -> None:
    refused = chrysalis("serve", "--http", "--concurrency", "-1", "--workspace", str(workspace))
    assert_clean_error(refused, 2, "--concurrency -1", "chrysalis worker")
    with serving("--concurrency", "0", "--workspace", str(workspace)) as (url, _process, stderr):
        with httpx.Client(base_url=url, timeout=CLI_HANG_GUARD) as client:
            run_id = client.post("/v1/runs", json={"task": "fix it"}).json()["id"]
            assert client.get(f"/v1/runs/{run_id}").json()["status"] == "queued"
    assert "no worker: `chrysalis worker` runs them" in "".join(stderr)


def test_a_non_loopback_host_needs_an_api_key(workspace: Path) -> None:
    refused = chrysalis("serve", "--http", "--host", "0.0.0.0", "--port", "0", "--workspace", str(workspace))
    assert_clean_error(refused, 2, "--host 0.0.0.0", "CHRYSALIS_API_KEY")
    key = "k-" + "x" * 30
    with serving("--host", "0.0.0.0", "--workspace", str(workspace), env={"CHRYSALIS_API_KEY": key}) as (url, _p, _e):
        port = url.rsplit(":", 1)[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=CLI_HANG_GUARD) as client:
            assert client.get("/v1/health").status_code == 401
            assert client.get("/v1/health", headers={"Authorization": "Bearer nope"}).status_code == 401
            assert client.get("/v1/health", headers={"Authorization": f"Bearer {key}"}).status_code == 200


def test_a_port_in_use_is_a_clean_error(workspace: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        done = chrysalis("serve", "--http", "--port", port, "--workspace", str(workspace))
    assert_clean_error(done, 2, f"--port {port}", "0 picks a free one")


def test_a_run_survives_the_service_killed_mid_run(workspace: Path) -> None:
    """The run is in the durable queue: SIGKILL the service while the model holds its reply, and a
    ``chrysalis worker`` finishes it; ``chrysalis show`` then reports it done."""
    from chrysalis.llm.testing import ScriptedReply

    replies = iter([ScriptedReply(text="never delivered", held=True), ScriptedReply(text="Done after all.")])
    with ScriptedOpenAIServer(lambda _body: next(replies), max_requests=5) as model:
        with serving("--model", "openai:x", "--base-url", model.base_url, "--workspace", str(workspace)) as (
            url,
            process,
            _stderr,
        ):
            with httpx.Client(base_url=url, timeout=CLI_HANG_GUARD) as client:
                run_id = client.post("/v1/runs", json={"task": "say done", "mode": "ask"}).json()["id"]
            assert model.wait_for_requests(1, timeout=CLI_HANG_GUARD)
            process.kill()  # no clean stop: a crash
            process.wait(timeout=CLI_HANG_GUARD)
        resumed = subprocess.run(
            [*CHRYSALIS, "worker", "--exit-when-idle"],
            env=dict(os.environ),
            text=True,
            capture_output=True,
            timeout=CLI_HANG_GUARD,
            stdin=subprocess.DEVNULL,
        )
    assert resumed.returncode == 0, resumed.stderr
    record = json.loads(chrysalis("show", run_id, "--json").stdout.splitlines()[-1])
    assert record["status"] == "done" and record["result"]["output"] == "Done after all."
