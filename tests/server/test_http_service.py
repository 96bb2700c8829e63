"""The HTTP service in process: runs queued and executed against a scripted model, their events, refusals.

The app runs under Starlette's test client; a run executes in the service's own worker (the durable
queue's, as ``chrysalis worker``), against ``ScriptedOpenAIServer`` on 127.0.0.1. Tests wait for a run
by reading its event stream to its ``end`` event, never by sleeping.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chrysalis.errors import UsageError
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.server.http.service import check_exposure
from tests.helpers import chrysalis

ServiceFactory = Callable[..., AbstractContextManager[TestClient]]
"""The ``http_service`` fixture (tests/server/conftest.py)."""

FIX = [
    ScriptedReply.tool_call("read_file", {"path": "calc.py"}),
    ScriptedReply.tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
    ScriptedReply(text="Fixed."),
]


def stream(client: TestClient, run_id: str, **headers: str) -> list[tuple[str, dict[str, Any]]]:
    """The run's SSE stream to its end: ``(event name, data)`` pairs, ``message`` for unnamed ones."""
    received: list[tuple[str, dict[str, Any]]] = []
    name = "message"
    with client.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                received.append((name, json.loads(line.removeprefix("data:").strip())))
                name = "message"
    return received


def test_a_run_is_queued_executed_and_streamed_like_run_json(http_service: ServiceFactory, workspace: Path) -> None:
    with (
        ScriptedOpenAIServer(FIX) as model,
        http_service(worker=True, model="openai:x", base_url=model.base_url, yes=True) as client,
    ):
        created = client.post("/v1/runs", json={"task": "fix the failing test"})
        assert created.status_code == 202
        run_id = created.json()["id"]
        assert created.json() == {"id": run_id, "status": "queued"}
        received = stream(client, run_id)
        run = client.get(f"/v1/runs/{run_id}").json()
    events = [data for name, data in received if name == "message"]
    assert [e["type"] for e in events][0] == "start" and events[-1]["type"] == "final"
    assert [e["type"] for e in events].count("tool_call") == 2
    assert all(e["run_id"] == run_id for e in events)
    assert received[-1] == ("end", {"id": run_id, "status": "done"})
    assert "a - b" in (workspace / "calc.py").read_text()
    assert run["status"] == "done" and run["answer"] == "Fixed." and run["success"] is True
    assert run["steps"] == events[-1]["steps"] == 3
    # three replies of 10 + 5 tokens, and two more: the edit was voted on (docs/voting.md), its redraws count
    assert [e["samples"] for e in events if e["type"] == "vote"] == [3]
    assert run["input_tokens"] == 50 and run["output_tokens"] == 25
    assert run["cost_usd"] == events[-1]["cost_usd"]
    # the queue's own commands see the service's run
    [listed] = json.loads(chrysalis("queue", "--json").stdout)
    assert (listed["id"], listed["status"]) == (run_id, "done")


def test_the_stream_replays_from_last_event_id(http_service: ServiceFactory) -> None:
    with (
        ScriptedOpenAIServer(["Hello."]) as model,
        http_service(worker=True, model="openai:x", base_url=model.base_url) as client,
    ):
        run_id = client.post("/v1/runs", json={"task": "say hello", "mode": "ask"}).json()["id"]
        first = stream(client, run_id)
        again = stream(client, run_id, **{"Last-Event-ID": "0"})
    assert first == again  # a finished run replays in full
    assert first[-2][1]["type"] == "final" and first[-2][1]["output"] == "Hello."


def test_a_queued_run_is_cancelled_and_a_finished_one_cannot_be(http_service: ServiceFactory) -> None:
    with http_service(worker=False) as client:  # no worker: the run stays queued
        run_id = client.post("/v1/runs", json={"task": "fix it"}).json()["id"]
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "queued"
        cancelled = client.delete(f"/v1/runs/{run_id}")
        assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
        again = client.delete(f"/v1/runs/{run_id}")
        assert again.status_code == 409
        assert again.json()["error"]["field"] == "id" and "already finished" in again.json()["error"]["message"]
        assert stream(client, run_id) == [("end", {"id": run_id, "status": "cancelled"})]
    assert json.loads(chrysalis("show", run_id, "--json").stdout.splitlines()[-1])["status"] == "cancelled"


def test_runs_are_listed_newest_first_and_by_status(http_service: ServiceFactory) -> None:
    with http_service(worker=False) as client:  # no worker: runs stay queued until cancelled
        first, second, third = (client.post("/v1/runs", json={"task": f"task {n}"}).json()["id"] for n in range(3))
        client.delete(f"/v1/runs/{second}")
        listed = client.get("/v1/runs").json()["runs"]
        queued = client.get("/v1/runs", params={"status": "queued", "limit": 1}).json()["runs"]
        cancelled = client.get("/v1/runs", params={"status": "cancelled"}).json()["runs"]
        too_many = client.get("/v1/runs", params={"limit": 501})
        no_such = client.get("/v1/runs", params={"status": "lost"})
    assert [run["id"] for run in listed] == [third, second, first]
    assert listed[0] == {**listed[0], "task": "task 2", "status": "queued", "answer": None}
    assert [run["id"] for run in queued] == [third] and [run["id"] for run in cancelled] == [second]
    assert too_many.status_code == 400 and too_many.json()["error"]["field"] == "limit"
    assert "500" in too_many.json()["error"]["message"]
    assert no_such.status_code == 400 and no_such.json()["error"]["field"] == "status"


def test_a_running_run_is_cancelled_at_its_next_step(http_service: ServiceFactory, workspace: Path) -> None:
    replies = iter([ScriptedReply(tool_calls=(("read_file", {"path": "calc.py"}),), held=True), *FIX[1:]])
    with (
        ScriptedOpenAIServer(lambda _body: next(replies), max_requests=10) as model,
        http_service(worker=True, model="openai:x", base_url=model.base_url, yes=True) as client,
    ):
        run_id = client.post("/v1/runs", json={"task": "fix the failing test"}).json()["id"]
        assert model.wait_for_requests(1, timeout=120)
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "running"
        assert client.delete(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
        model.release()
        received = stream(client, run_id)
    assert received[-1] == ("end", {"id": run_id, "status": "cancelled"})
    assert "a + b" in (workspace / "calc.py").read_text()  # the edit that came after the cancel never ran
    assert len(model.requests) == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"task": ""}, "task", "task is empty"),
        ({"task": "   \n"}, "task", "task is empty"),
        ({}, "task", "required"),
        (None, "task", "body is missing"),
        ({"task": "x", "level": 9}, "level", "0 to 3"),
        ({"task": "x", "level": "two"}, "level", "0 to 3"),
        ({"task": "x", "level": 3}, "level", "above this server's level 2"),
        ({"task": "x", "mode": "yolo"}, "mode", "ask, architect, code, semantic"),
        ({"task": "x", "model": ":"}, "model", "provider:name"),
        ({"task": "x", "base_url": "ftp://x"}, "base_url", "http(s) URL"),
        ({"task": "x", "workspace": "/no/such/folder"}, "workspace", "no such folder"),
        ({"task": "x", "urgency": "soon"}, "urgency", "critical"),
        ({"task": "x", "yes": True}, "yes", "Unknown field"),
        ([1, 2], None, "JSON object"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(
    http_service: ServiceFactory, body: Any, field: str | None, words: str
) -> None:
    with http_service() as client:
        response = client.post("/v1/runs", json=body) if body is not None else client.post("/v1/runs")
        assert client.get("/v1/health").status_code == 200
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["field"] == field and words in error["message"], error


def test_a_request_may_narrow_the_servers_mode_never_widen_it(http_service: ServiceFactory) -> None:
    with http_service(mode="architect") as client:
        widened = client.post("/v1/runs", json={"task": "x", "mode": "code"})
        narrowed = client.post("/v1/runs", json={"task": "x", "mode": "ask"})
    assert widened.status_code == 400, widened.text  # before: queued, and run in code mode by a server in architect
    error = widened.json()["error"]
    assert error["field"] == "mode"
    assert error["message"] == (
        "mode 'code' allows more than this server's mode 'architect': a request may narrow the mode "
        "(to ask, architect), not widen it (start `chrysalis serve --http --mode code`)."
    )
    assert narrowed.status_code == 202, narrowed.text


def test_invalid_json_is_a_400(http_service: ServiceFactory) -> None:
    with http_service() as client:
        response = client.post("/v1/runs", content=b"{task", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]["message"]


def test_unknown_ids_are_404_in_json(http_service: ServiceFactory) -> None:
    with http_service() as client:
        for method, path in [
            ("GET", "/v1/runs/nope"),
            ("GET", "/v1/runs/nope/events"),
            ("DELETE", "/v1/runs/nope"),
            ("GET", "/v1/nothing"),
        ]:
            response = client.request(method, path)
            assert response.status_code == 404, (method, path)
            assert response.headers["content-type"] == "application/json"
            assert response.json()["error"]["message"]


def test_a_lower_level_is_kept_and_the_server_settings_fill_the_rest(http_service: ServiceFactory) -> None:
    with http_service(model="openai:x", base_url="http://127.0.0.1:9/v1", level=1) as client:
        run_id = client.post("/v1/runs", json={"task": "look", "level": 0, "mode": "ask"}).json()["id"]
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "queued"
    record = json.loads(chrysalis("show", run_id, "--json").stdout.splitlines()[-1])
    assert record["task"] == "look"
    from chrysalis.config import load_settings
    from chrysalis.runtime.database import database_url, open_engine
    from chrysalis.runtime.runs import RunStore

    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        options = runs.get(run_id).options
    assert options["level"] == 0 and options["mode"] == "ask"
    assert options["model"] == "openai:x" and options["base_url"] == "http://127.0.0.1:9/v1"


def test_models_stats_and_health(http_service: ServiceFactory) -> None:
    with http_service(model="openai:x") as client:
        models = client.get("/v1/models").json()
        stats = client.get("/v1/stats").json()
        health = client.get("/v1/health").json()
    assert models["default"] == "openai:x"
    assert any(card["model"].startswith("local:") for card in models["models"])
    assert stats == {"profiles": [], "recent_runs": []}
    assert health["status"] == "ok"


def test_a_key_guards_every_request(http_service: ServiceFactory) -> None:
    with http_service(api_key="s3cret-key") as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-key"}):
            for path in ("/v1/health", "/openapi.json", "/v1/runs/nope"):
                refused = client.get(path, headers=headers)
                assert refused.status_code == 401, (path, headers)
                assert refused.headers["www-authenticate"] == "Bearer"
                assert refused.json()["error"]["field"] == "Authorization"
        good = {"Authorization": "Bearer s3cret-key"}
        assert client.get("/v1/health", headers=good).status_code == 200
        assert client.post("/v1/runs", json={"task": "hi"}, headers=good).status_code == 202
        schema = client.get("/openapi.json", headers=good).json()
    assert schema["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    assert all("401" in op["responses"] for ops in schema["paths"].values() for op in ops.values())


def test_the_schema_describes_every_endpoint_without_422(http_service: ServiceFactory) -> None:
    with http_service() as client:
        schema = client.get("/openapi.json").json()
    operations = {(path, method) for path, ops in schema["paths"].items() for method in ops}
    assert operations == {
        ("/v1/runs", "post"),
        ("/v1/runs", "get"),
        ("/v1/runs/{run_id}", "get"),
        ("/v1/runs/{run_id}", "delete"),
        ("/v1/runs/{run_id}/events", "get"),
        ("/v1/models", "get"),
        ("/v1/stats", "get"),
        ("/v1/health", "get"),
    }
    assert not any("422" in op["responses"] for ops in schema["paths"].values() for op in ops.values())
    run = schema["components"]["schemas"]["RunView"]["properties"]["status"]
    assert run["enum"] == ["queued", "running", "done", "failed", "cancelled"]
    assert schema["paths"]["/v1/runs"]["post"]["responses"]["400"]["content"]["application/json"]


@pytest.mark.parametrize(
    ("host", "key", "refused"),
    [
        ("127.0.0.1", None, False),
        ("127.0.0.2", None, False),
        ("::1", None, False),
        ("localhost", None, False),
        ("0.0.0.0", None, True),
        ("::", None, True),
        ("192.168.1.5", None, True),
        ("my-host.example", None, True),  # a name may resolve anywhere
        ("0.0.0.0", "k" * 32, False),
    ],
)
def test_only_loopback_goes_without_a_key(host: str, key: str | None, refused: bool) -> None:
    if not refused:
        check_exposure(host, key)
        return
    with pytest.raises(UsageError, match="CHRYSALIS_API_KEY") as caught:
        check_exposure(host, key)
    assert f"--host {host}" in str(caught.value)


def test_the_listening_socket_says_tcp_so_asyncio_turns_nagle_off(http_service: ServiceFactory) -> None:
    """asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; without it every keep-alive
    request waited ~40 ms for the client's delayed ACK (found by bench/http_service.py)."""
    import socket

    from chrysalis.server.http.service import _server

    with http_service() as client:
        _uvicorn, sock = _server(client.app, "127.0.0.1", 0, "no worker")  # type: ignore[arg-type]
        try:
            assert sock.proto == socket.IPPROTO_TCP
        finally:
            sock.close()
