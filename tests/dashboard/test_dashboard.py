"""The dashboard in process (Starlette's TestClient): the token gate, each page over seeded stores, escaping."""

from __future__ import annotations

import html
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from chrysalis.config import load_settings
from chrysalis.events import Start
from chrysalis.server.dashboard.app import HEADERS, create_app
from chrysalis.server.dashboard.pages import QUIET_S, run_page, runs_page
from chrysalis.stores import Stores
from tests.helpers import chrysalis

TOKEN = "test-token-123"
PAGES = ("/", "/runs/run-ok-1", "/stats", "/archive", "/decompositions", "/queue", "/queue/q-done")


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A client that has opened the printed URL once (so it holds the cookie), not following redirects."""
    with TestClient(create_app(load_settings({}), TOKEN), follow_redirects=False) as test_client:
        first = test_client.get(f"/?token={TOKEN}")
        assert first.status_code == 303 and first.headers["location"] == "/"
        yield test_client


def text(html: str) -> str:
    """The page's visible text, roughly: tags dropped, entities left as they are."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.parametrize("path", [*PAGES, "/no-such-page", "/favicon.ico"])
def test_every_path_needs_the_token(chrysalis_home: Path, path: str) -> None:
    with TestClient(create_app(load_settings({}), TOKEN)) as anonymous:
        for reply in (anonymous.get(path), anonymous.get(f"{path}?token=wrong"), anonymous.get(f"{path}?token=")):
            assert reply.status_code == 403
            assert "Open the URL that <code>chrysalis ui</code> printed" in reply.text
        anonymous.cookies.set("chrysalis_ui", "wrong")
        assert anonymous.get(path).status_code == 403


def test_the_token_moves_into_a_cookie_and_out_of_the_url(chrysalis_home: Path) -> None:
    with TestClient(create_app(load_settings({}), TOKEN), follow_redirects=False) as browser:
        reply = browser.get(f"/stats?token={TOKEN}&x=1")
        assert reply.status_code == 303 and reply.headers["location"] == "/stats?x=1"
        cookie = reply.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert browser.get("/stats").status_code == 200  # the cookie alone is enough from now on


def test_every_reply_forbids_scripts_and_outside_sources(client: TestClient) -> None:
    for reply in (client.get("/"), client.get("/nope"), TestClient(client.app).get("/")):
        for name, value in HEADERS.items():
            assert reply.headers[name] == value
    assert "script-src" not in HEADERS["content-security-policy"]  # default-src 'none' covers scripts
    page = client.get("/").text
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_empty_stores_say_which_command_fills_each_page(client: TestClient) -> None:
    expected = {
        "/": 'chrysalis run "TASK"',
        "/stats": 'chrysalis run "TASK"',
        "/archive": "chrysalis compile FILE.py:NAME --train data.jsonl",
        "/decompositions": 'chrysalis decompose "TASK"',
        "/queue": 'chrysalis submit "TASK"',
    }
    for path, command in expected.items():
        reply = client.get(path)
        assert reply.status_code == 200
        assert "No " in reply.text and f"<code>{html.escape(command)}</code>" in reply.text
    assert not (load_settings({}).home / "runtime.sqlite").exists()  # looking did not create the queue's database


def test_runs_and_a_runs_events_in_order(seeded: Path, client: TestClient) -> None:
    runs = text(client.get("/").text)
    for shown in ("run-ok-1", "run-err-2", "plan-3", "succeeded", "stopped", "0.0123", "openai:gpt-test"):
        assert shown in runs
    assert runs.index("plan-3") < runs.index("run-err-2") < runs.index("run-ok-1")  # newest first
    assert "parser.py openai:gpt-test failed 6" in runs  # a decomposition ends with plan_end, not final
    assert 'href="/runs/run-ok-1"' in client.get("/").text

    run = client.get("/runs/run-ok-1")
    assert run.status_code == 200
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td class=\"num\">[^<]*</td><td>([^<]+)</td>", run.text)
    assert rows == [
        ("1", "start"),
        ("2", "model_call"),
        ("3", "tool_call"),
        ("4", "tool_result"),
        ("5", "text_delta ×2"),
        ("6", "final"),
    ]
    body = text(run.text)
    assert "The bug is fixed." in body and "read_file" in body and "1200 in / 80 out" in body


def test_stats_show_rates_time_and_cost(seeded: Path, client: TestClient) -> None:
    body = text(client.get("/stats").text)
    assert "runs 4" in body and "succeeded 75%" in body and "total USD 0.0600" in body
    assert "coder fix openai:gpt-test 3 67% 2.0 0.0600 300 / 30" in body
    assert "researcher explain local:qwen2.5-coder-1.5b 1 100% 0.5 0.0000" in body
    assert "fix openai:gpt-test 3 67% 2.0 0.0200" in body  # by model: mean USD per run


def test_archive_grid_has_each_bins_elite(seeded: Path, client: TestClient) -> None:
    page = client.get("/archive").text
    grid = page[page.index('<table class="grid">') : page.index("</table>", page.index('<table class="grid">'))]
    rows = re.findall(r"<tr><th>([a-z]+ · (?:fast|slow))</th>(.*?)</tr>", grid)
    scores = {label: re.findall(r"<b>([\d.]+)</b>|>(empty)<", cells) for label, cells in rows}
    assert scores == {
        "cheap · fast": [("", "empty"), ("0.800", "")],
        "cheap · slow": [("0.900", ""), ("", "empty")],
        "premium · fast": [("0.700", ""), ("", "empty")],
        "premium · slow": [("", "empty"), ("0.625", "")],
    }
    assert "sum.&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    assert "split at the medians: cost 2.5 USD, latency 25 ms, 250 tokens" in text(page)


def test_decompositions_are_nested_trees_with_their_latest_state(seeded: Path, client: TestClient) -> None:
    page = client.get("/decompositions").text
    body = text(page)
    assert "Add tests for lexer.py and parser.py" in body and "3 nodes · failed" in body  # as its plan_end says
    root = page.index("[decompose]")
    lexer, parser = page.index("Write tests for lexer.py"), page.index("Write tests for parser.py")
    assert root < lexer < parser
    assert page.count('<ul class="tree') == 2  # the root's list, and its children's inside it
    assert "done" in page[page.rindex("badge", 0, lexer) - 20 : lexer]  # the leaf's last state, not "running"
    assert 'href="/runs/run-ok-1">sub-agent run' in page
    assert "pytest failed twice" in body and "lexer done; parser failed" in body
    assert "Pattern archive" in body and "decompose@0, spawn@1" in body and "0.750" in body


def test_queue_lists_runs_with_their_states(seeded: Path, client: TestClient) -> None:
    page = client.get("/queue").text
    body = text(page)
    assert "q-waiting" in body and "q-done" in body and "queued 1" in body and "done 1" in body
    assert "Queued &lt;b&gt;task&lt;/b&gt;" in page
    run = client.get("/queue/q-done")
    assert run.status_code == 200
    assert "forty-two" in run.text and "read_file" in run.text and "w-1" in run.text


REFRESH = '<meta http-equiv="refresh"'


def test_pages_of_what_still_changes_reload_themselves(seeded: Path, client: TestClient) -> None:
    assert REFRESH in client.get("/queue").text  # q-waiting is queued
    for path in ("/queue/q-done", "/", "/runs/run-ok-1", "/runs/run-err-2", "/stats"):
        assert REFRESH not in client.get(path).text  # finished runs, a table of past outcomes
    with Stores.open(seeded) as stores:
        start = Start(
            run_id="run-live",
            ts=time.time(),
            task="Still going",
            model="local:m",
            mode="code",
            level=2,
            workspace="/ws",
            task_type="fix",
            profile="coder",
            profile_reason="default",
        )
        stores.traces.record("run-live", start.to_json())
    assert REFRESH in client.get("/runs/run-live").text and REFRESH in client.get("/").text


def test_a_run_silent_too_long_stops_reloading(seeded: Path) -> None:
    with Stores.open(seeded) as stores:
        stores.traces.record(
            "run-killed",
            Start(
                run_id="run-killed",
                ts=1_000.0,
                task="t",
                model="m",
                mode="code",
                level=2,
                workspace="/ws",
                task_type="fix",
                profile="coder",
                profile_reason="default",
            ).to_json(),
        )
        (summary,) = [run for run in stores.traces.runs() if run.run_id == "run-killed"]
    assert summary.status == "unfinished"
    assert REFRESH in run_page(summary, [], now=1_000.0 + QUIET_S - 1)
    assert REFRESH not in run_page(summary, [], now=1_000.0 + QUIET_S)
    assert REFRESH not in runs_page([summary], now=1_000.0 + QUIET_S)


def test_unknown_ids_are_404_pages(seeded: Path, client: TestClient) -> None:
    for path in ("/runs/nope", "/queue/nope", "/runs/%3Cscript%3E"):
        reply = client.get(path)
        assert reply.status_code == 404 and "Not found" in reply.text and "<script>" not in reply.text


def test_what_models_and_users_wrote_shows_as_text(seeded: Path, client: TestClient) -> None:
    escaped = "Fix the &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; bug"
    for path in ("/", "/runs/run-ok-1"):
        page = client.get(path).text
        assert escaped in page
        assert "<script" not in page


def test_the_command_refuses_a_port_that_is_not_one() -> None:
    done = chrysalis("ui", "--port", "70000")
    assert done.returncode == 2
    assert "--port 70000 is not a port" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_a_usage_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = chrysalis("ui", "--port", str(port))
    assert done.returncode == 2
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in done.stderr and "--port 0" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""  # no URL printed for a server that never started


def test_an_unreachable_queue_database_is_said_on_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as closed:  # a loopback port that nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("CHRYSALIS_DATABASE_URL", f"postgresql://user:secret@127.0.0.1:{port}/chrysalis")
    with TestClient(create_app(load_settings({}), TOKEN)) as browser:
        reply = browser.get(f"/queue?token={TOKEN}")
        assert reply.status_code == 200
        assert "Cannot open the runtime database postgresql://user:***@127.0.0.1" in reply.text
        assert "secret" not in reply.text
        assert browser.get("/queue/q-1").status_code == 503


def test_a_home_that_cannot_be_opened_is_said_on_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_folder = tmp_path / "home-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("CHRYSALIS_HOME", str(not_a_folder))
    with TestClient(create_app(load_settings({}), TOKEN)) as browser:
        reply = browser.get(f"/stats?token={TOKEN}")
    assert reply.status_code == 500
    assert f"Cannot create the Chrysalis home folder {not_a_folder}" in reply.text and "CHRYSALIS_HOME" in reply.text
