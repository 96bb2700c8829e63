"""Egress attacks: the web tools reach only public addresses unless an allow rule names the host.

Each fetch goes through the real tool (``web_fetch``, ``web_search``) with the context a run's
policy gives it (``Policy.hosts``), with ``--yes`` and without. A loopback server counts every
request it gets: a refused fetch must leave it untouched, whatever spelling of loopback the URL
uses, whatever a name resolves to, and wherever a redirect points. Names are resolved through a
patched ``socket.getaddrinfo`` (``dns``), so no test needs a resolver or the network.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.egress import EgressRefused, HostRules, check
from chrysalis.tools.policy import Policy
from chrysalis.tools.rules import Action, Rule
from chrysalis.tools.web import make_web_search, web_fetch


@dataclass
class Server:
    """A loopback HTTP server that records (path, Host header) of each request and answers from ``routes``."""

    httpd: ThreadingHTTPServer
    hits: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    routes: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict[str, Any])

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])


def _serve() -> Server:
    server = Server(ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.hits.append((self.path, self.headers.get("Host", "")))
            status, headers, body = server.routes.get(self.path, (200, {"Content-Type": "text/plain"}, b"inside"))
            self.send_response(status)
            for key, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server.httpd.RequestHandlerClass = Handler
    threading.Thread(target=server.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A tool context with no rules: what ``_context`` starts from."""
    return ToolContext(workspace=tmp_path)


@contextmanager
def _served() -> Iterator[Server]:
    served = _serve()
    try:
        yield served
    finally:
        served.httpd.shutdown()
        served.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    with _served() as served:
        yield served


@pytest.fixture
def other() -> Iterator[Server]:
    """A second loopback server, on another port: where redirects try to lead."""
    with _served() as served:
        yield served


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names to addresses (a list per name, in the resolver's order); other names resolve as usual."""
    names: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in names:
            return [_info(address, int(port)) for address in names[host]]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names


def _info(address: str, port: int) -> tuple[Any, ...]:
    if ":" in address:
        return (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))


def _context(ctx: ToolContext, *rules: str, yes: bool = False, action: Action = "allow") -> ToolContext:
    """The tools' context as a run with these rules (and ``--yes``) gives it."""
    parsed = tuple(Rule.parse(text, action, "test") for text in rules)
    return replace(ctx, hosts=Policy(level=1, mode="code", auto_approve=yes, rules=parsed).hosts)


Url = Callable[[int], str]
REFUSED: list[tuple[str, Url, str]] = [
    ("loopback", lambda port: f"http://127.0.0.1:{port}/", "127.0.0.1 is a loopback address"),
    ("loopback, elsewhere in 127/8", lambda port: f"http://127.1.2.3:{port}/", "is a loopback address"),
    ("localhost", lambda port: f"http://localhost:{port}/", "localhost resolves to"),
    ("IPv6 loopback", lambda port: f"http://[::1]:{port}/", "::1 is a loopback address"),
    ("IPv4-mapped", lambda port: f"http://[::ffff:127.0.0.1]:{port}/", "loopback address in IPv6 form (127.0.0.1)"),
    ("IPv4-compatible", lambda port: f"http://[::127.0.0.1]:{port}/", "loopback address in IPv6 form"),
    ("6to4", lambda port: f"http://[2002:7f00:1::]:{port}/", "loopback address in IPv6 form"),
    ("NAT64", lambda port: f"http://[64:ff9b::7f00:1]:{port}/", "loopback address in IPv6 form"),
    ("decimal", lambda port: f"http://2130706433:{port}/", "2130706433 resolves to 127.0.0.1, a loopback address"),
    ("octal", lambda port: f"http://0177.0.0.1:{port}/", "0177.0.0.1 resolves to 127.0.0.1, a loopback address"),
    ("hex", lambda port: f"http://0x7f000001:{port}/", "resolves to 127.0.0.1, a loopback address"),
    ("short", lambda port: f"http://127.1:{port}/", "127.1 resolves to 127.0.0.1, a loopback address"),
    ("unspecified", lambda port: f"http://0.0.0.0:{port}/", "0.0.0.0 is an unspecified address"),
    ("private 10/8", lambda _: "http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("private 172.16/12", lambda _: "http://172.16.5.4/", "is a private address"),
    ("private 192.168/16", lambda _: "https://192.168.1.1/admin", "is a private address"),
    ("CGNAT", lambda _: "http://100.64.0.1/", "is a shared (CGNAT) address"),
    ("metadata", lambda _: "http://169.254.169.254/latest/meta-data/", "link-local address (the cloud metadata"),
    ("IPv6 link-local", lambda _: "http://[fe80::1]/", "is a link-local address"),
    ("unique-local", lambda _: "http://[fd00::1]/", "is a unique-local address"),
    ("multicast", lambda _: "http://224.0.0.1/", "is a multicast address"),
    ("IPv6 unspecified", lambda _: "http://[::]/", "is an unspecified address"),
    ("reserved", lambda _: "http://240.0.0.1/", "is a reserved address"),
    ("broadcast", lambda _: "http://255.255.255.255/", "is a reserved address"),
]


@pytest.mark.parametrize("yes", [False, True], ids=["asking", "--yes"])
@pytest.mark.parametrize(("url", "why"), [(url, why) for _, url, why in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_a_non_public_address_is_refused(server: Server, ctx: ToolContext, url: Url, why: str, yes: bool) -> None:
    result = web_fetch({"url": url(server.port)}, _context(ctx, yes=yes))

    assert not result.ok
    error = result.error or ""
    assert error.startswith("refused: ") and why in error, error
    assert "allow rule web_fetch(domain:" in error
    assert server.hits == []


def test_the_refusal_names_the_rule_that_allows_it(server: Server, ctx: ToolContext) -> None:
    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/"}, _context(ctx))

    assert result.error == (
        "refused: 127.0.0.1 is a loopback address; the web tools reach only public addresses. "
        "A [permissions] allow rule web_fetch(domain:127.0.0.1) allows it."
    )


def test_a_rule_for_another_host_does_not_allow_this_one(server: Server, ctx: ToolContext) -> None:
    hosts = _context(ctx, "web_fetch(domain:localhost)", "web_fetch", "*")
    assert not web_fetch({"url": f"http://127.0.0.1:{server.port}/"}, hosts).ok
    assert server.hits == []


@pytest.mark.parametrize(
    ("addresses", "shown"),
    [(["127.0.0.1"], "127.0.0.1"), (["93.184.216.34", "127.0.0.1"], "127.0.0.1"), (["::1"], "::1")],
    ids=["loopback", "one of several", "IPv6"],
)
def test_a_public_looking_name_that_resolves_inside_is_refused(
    server: Server, ctx: ToolContext, dns: dict[str, list[str]], addresses: list[str], shown: str
) -> None:
    dns["docs.example.com"] = addresses

    result = web_fetch({"url": f"http://docs.example.com:{server.port}/"}, _context(ctx, yes=True))

    assert (result.error or "").startswith(f"refused: docs.example.com resolves to {shown}, a loopback address")
    assert server.hits == []


def test_the_connection_goes_to_the_checked_address_not_a_second_answer(
    server: Server, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: a public address at the check, loopback a moment later. Nothing resolves the name twice."""
    answers = iter(["93.184.216.34", "127.0.0.1", "127.0.0.1"])
    asked: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host != "rebind.example.com":
            return real(host, port, *args, **kwargs)
        asked.append(host)
        return [_info(next(answers), int(port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)

    result = web_fetch({"url": f"http://rebind.example.com:{server.port}/"}, _context(ctx))

    assert asked == ["rebind.example.com"]
    assert (result.error or "") == (
        f"the network is unreachable from here: tests may not use the network (tried 93.184.216.34:{server.port})"
    )
    assert server.hits == []


def test_an_allowed_name_is_reached_at_its_checked_address_with_its_own_host_header(
    server: Server, ctx: ToolContext, dns: dict[str, list[str]]
) -> None:
    dns["docs.internal"] = ["127.0.0.1"]

    result = web_fetch(
        {"url": f"http://docs.internal:{server.port}/page?q=1"}, _context(ctx, "web_fetch(domain:internal)")
    )

    assert result.ok, result.error
    assert result.result == "inside"
    assert server.hits == [("/page?q=1", f"docs.internal:{server.port}")]


def test_an_unreachable_first_address_falls_back_to_the_next_checked_one(
    server: Server, ctx: ToolContext, dns: dict[str, list[str]]
) -> None:
    dns["docs.internal"] = ["127.0.0.2", "127.0.0.1"]  # nothing listens on .2: refused, as IPv6 on a v4-only host

    result = web_fetch({"url": f"http://docs.internal:{server.port}/page"}, _context(ctx, "web_fetch(domain:internal)"))

    assert result.ok, result.error
    assert server.hits == [("/page", f"docs.internal:{server.port}")]


def test_an_allow_rule_naming_the_host_lets_the_fetch_through(server: Server, ctx: ToolContext) -> None:
    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/docs"}, _context(ctx, "web_fetch(domain:127.0.0.1)"))

    assert result.ok, result.error
    assert result.result == "inside"
    assert server.hits == [("/docs", f"127.0.0.1:{server.port}")]


def _redirect(server: Server, path: str, location: str) -> None:
    server.routes[path] = (302, {"Location": location}, b"")


@pytest.mark.parametrize(
    "target",
    ["http://localhost:{port}/secret", "http://[::1]:{port}/secret", "http://[::ffff:7f00:1]:{port}/secret"],
    ids=["localhost", "IPv6", "mapped"],
)
def test_a_redirect_to_a_loopback_host_that_is_not_allowed_is_refused(
    server: Server, other: Server, ctx: ToolContext, target: str
) -> None:
    _redirect(server, "/go", target.format(port=other.port))

    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/go"}, _context(ctx, "web_fetch(domain:127.0.0.1)"))

    error = result.error or ""
    assert error.startswith("refused: ") and f"(a redirect to {target.format(port=other.port)})" in error, error
    assert [path for path, _ in server.hits] == ["/go"]
    assert other.hits == []


def test_redirects_within_allowed_hosts_are_followed(server: Server, other: Server, ctx: ToolContext) -> None:
    _redirect(server, "/go", f"http://127.0.0.1:{other.port}/next")
    _redirect(other, "/next", "/final")

    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/go"}, _context(ctx, "web_fetch(domain:127.0.0.1)"))

    assert result.result == "inside"
    assert [path for path, _ in other.hits] == ["/next", "/final"]


def test_redirects_are_bounded(server: Server, ctx: ToolContext) -> None:
    _redirect(server, "/loop", "/loop")

    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/loop"}, _context(ctx, "web_fetch(domain:127.0.0.1)"))

    assert (
        result.error
        == f"http://127.0.0.1:{server.port}/loop redirected more than 5 times; fetch the final address directly."
    )
    assert len(server.hits) == 6


@pytest.mark.parametrize("action", ["deny", "ask"])
def test_a_redirect_to_a_host_a_rule_denies_or_asks_about_is_refused(
    server: Server, ctx: ToolContext, dns: dict[str, list[str]], action: Action
) -> None:
    dns["blocked.example.com"] = ["93.184.216.34"]
    _redirect(server, "/go", "http://blocked.example.com/x")
    rules = (
        Rule.parse("web_fetch(domain:127.0.0.1)", "allow", "test"),
        Rule.parse("web_fetch(domain:blocked.example.com)", action, "test"),
    )
    context = replace(ctx, hosts=Policy(level=1, mode="code", rules=rules).hosts)

    result = web_fetch({"url": f"http://127.0.0.1:{server.port}/go"}, context)

    assert result.error == (
        f"refused: a redirect to blocked.example.com is forbidden by the rule {action} "
        "web_fetch(domain:blocked.example.com) in [permissions]."
    )


def test_web_search_is_checked_too_and_says_it_is_a_refusal(server: Server, ctx: ToolContext) -> None:
    search = make_web_search(f"http://127.0.0.1:{server.port}/html/")

    refused = search({"query": "anything"}, _context(ctx, yes=True))
    assert (refused.error or "").startswith("refused: 127.0.0.1 is a loopback address")
    assert server.hits == []

    assert search({"query": "anything"}, _context(ctx, "web_fetch(domain:127.0.0.1)")).ok


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/", "is not an http(s) address"),
        ("file:///etc/passwd", "is not an http(s) address"),
        ("http://user:pw@example.com/", "carries credentials"),
        ("http://example.com:99999/", "has an invalid port"),
    ],
)
def test_what_is_not_an_http_request_is_refused_before_any_resolution(url: str, why: str) -> None:
    with pytest.raises(EgressRefused, match=re.escape(why)):
        check(url, HostRules(allowed=("example.com",)))


def test_the_policy_reads_the_host_rules_from_web_fetch_and_star_domain_rules() -> None:
    rules = [
        Rule.parse("web_fetch(domain:127.0.0.1)", "allow", "a"),
        Rule.parse("*(domain:intranet.local)", "allow", "b"),
        Rule.parse("web_fetch", "allow", "c"),
        Rule.parse("shell(domain:ignored)", "allow", "d"),
        Rule.parse("web_fetch(domain:evil.example)", "deny", "e"),
        Rule.parse("web_fetch(domain:ask.example)", "ask", "f"),
    ]
    hosts = Policy(level=1, mode="code", auto_approve=True, rules=tuple(rules)).hosts

    assert hosts == HostRules(allowed=("127.0.0.1", "intranet.local"), denied=("evil.example",), asked=("ask.example",))
    assert hosts.allows("wiki.intranet.local") and not hosts.allows("127.0.0.2")
