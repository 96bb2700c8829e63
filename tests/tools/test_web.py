from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.policy import Policy
from chrysalis.tools.rules import Rule
from chrysalis.tools.web import html_to_text, make_web_search, parse_duckduckgo, web_fetch

PAGE = """<!doctype html><html><head><title>Ignored head</title><style>p {color: red}</style></head>
<body><h1>Calc&nbsp;docs</h1><script>alert("x")</script>
<p>Use <b>add</b> and
   <i>sub</i>.</p><ul><li>one</li><li>two</li></ul></body></html>"""

RESULTS = """<html><body>
<div class="result"><h2><a class="result__a"
  href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.python.org%2F3%2F&amp;rut=x">Python <b>docs</b></a></h2>
<a class="result__snippet" href="#">The official   documentation.</a></div>
<div class="result"><h2><a class="result__a" href="https://example.org/">Example</a></h2>
<a class="result__snippet">Second hit.</a></div>
</body></html>"""


class Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, str, bytes]]] = {
        "/page": (200, "text/html; charset=utf-8", PAGE.encode()),
        "/plain": (200, "text/plain", b"just text\n"),
        "/image": (200, "image/png", b"\x89PNG"),
        "/search": (200, "text/html", RESULTS.encode()),
        "/redirect": (302, "text/plain", b""),
        "/huge": (200, "text/plain", b"y" * 3_000_000),
    }

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        status, kind, body = self.routes.get(path, (404, "text/plain", b"missing"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if path == "/redirect":
            self.send_header("Location", "/plain")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def ctx(ctx: ToolContext) -> ToolContext:
    """The tools' context with the allow rule that lets the web tools reach the test server on 127.0.0.1."""
    policy = Policy(level=1, mode="code", rules=(Rule.parse("web_fetch(domain:127.0.0.1)", "allow", "test"),))
    return replace(ctx, hosts=policy.hosts)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(key, raising=False)


def test_fetch_html_as_text(server: str, ctx: ToolContext) -> None:
    result = web_fetch({"url": f"{server}/page"}, ctx)
    assert result.ok, result.error
    assert result.result == "Calc docs\nUse add and sub.\none\ntwo"


def test_fetch_plain_text_and_redirects(server: str, ctx: ToolContext) -> None:
    assert web_fetch({"url": f"{server}/plain"}, ctx).result == "just text"
    assert web_fetch({"url": f"{server}/redirect"}, ctx).result == "just text"


def test_fetch_reads_a_bounded_amount_and_truncates(server: str, ctx: ToolContext) -> None:
    text: str = web_fetch({"url": f"{server}/huge"}, ctx).result
    assert len(text) < 8_200
    cut = re.search(r"\[\.\.\. truncated (\d+) characters \.\.\.\]", text)
    assert cut is not None
    assert 1_900_000 < int(cut.group(1)) < 2_100_000  # about 2 MB read of 3 MB served, 8,000 characters kept


@pytest.mark.parametrize(
    ("path", "error"),
    [("/missing", "answered HTTP 404 Not Found"), ("/image", "is image/png, not text")],
)
def test_fetch_http_errors(server: str, ctx: ToolContext, path: str, error: str) -> None:
    result = web_fetch({"url": server + path}, ctx)
    assert not result.ok
    assert error in (result.error or "")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com", "http://"])
def test_fetch_refuses_non_http_urls(ctx: ToolContext, url: str) -> None:
    result = web_fetch({"url": url}, ctx)
    assert not result.ok
    assert "is not an http(s) address" in (result.error or "")


def test_fetch_offline_is_a_clear_error(ctx: ToolContext, closed_port: int) -> None:
    result = web_fetch({"url": f"http://127.0.0.1:{closed_port}/"}, ctx)
    assert not result.ok
    assert (result.error or "").startswith("the network is unreachable from here: ")


def test_search_parses_results(server: str, ctx: ToolContext) -> None:
    search = make_web_search(f"{server}/search")
    result = search({"query": "python docs"}, ctx)
    assert result.ok, result.error
    assert result.result == (
        "1. Python docs\n   https://docs.python.org/3/\n   The official documentation.\n"
        "2. Example\n   https://example.org/\n   Second hit."
    )
    assert search({"query": "python", "max_results": 1}, ctx).result.count("\n") == 2


def test_search_offline_says_it_needs_network(ctx: ToolContext, closed_port: int) -> None:
    result = make_web_search(f"http://127.0.0.1:{closed_port}/html/")({"query": "anything"}, ctx)
    assert not result.ok
    assert (result.error or "").startswith("Web search needs network access, which is not available here")


def test_search_bad_inputs(server: str, ctx: ToolContext) -> None:
    search = make_web_search(f"{server}/search")
    assert "query is empty" in (search({"query": " "}, ctx).error or "")
    assert "Bad arguments for web_search: max_results" in (search({"query": "x", "max_results": 0}, ctx).error or "")
    assert search({"query": "x", "max_results": 50}, ctx).ok  # the ceiling (10), not an error
    assert make_web_search(f"{server}/nothing")({"query": "x"}, ctx).error == (
        "The search engine answered HTTP 404; try again later."
    )


def test_search_with_no_results(server: str, ctx: ToolContext) -> None:
    assert make_web_search(f"{server}/plain")({"query": "zzz"}, ctx).result == "No results for 'zzz'."


def test_html_helpers() -> None:
    assert html_to_text("<p>a</p><p>b <br>c</p>") == "a\nb\nc"
    assert html_to_text("<pre>x = 1\ny = 2</pre>") == "x = 1\ny = 2"
    assert parse_duckduckgo("<p>no results</p>") == []
