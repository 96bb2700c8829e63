"""New web domains: asked once per domain below level 3, remembered for the session (``tools/domains.py``).

The person is a scripted approver that counts its questions. Names resolve through a patched
``socket.getaddrinfo`` to a public address, where the suite's socket guard stops the connection: a
result "tests may not use the network (tried 93.184.216.34:80)" shows the call passed the gate and the
egress check and was about to be sent. Redirects start from a loopback server that an allow rule lets
the tools reach. No test needs the network or a clock.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.gate.approval import Approver
from chrysalis.agent.limits import RunLimits
from chrysalis.agent.session import AgentSession
from chrysalis.agent.toolset import GatedTools
from chrysalis.config import load_settings
from chrysalis.events import ApprovalRequest, Event, ToolResultEvent
from chrysalis.evolve.priority import plan_for
from chrysalis.llm.testing import ScriptedModel
from chrysalis.llm.testing.model import final, tool
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.domains import ApprovedDomains
from chrysalis.tools.policy import Policy
from chrysalis.tools.rules import Rule
from chrysalis.tools.web import make_web_search, web_fetch

PUBLIC = "93.184.216.34"
SENT = f"the network is unreachable from here: tests may not use the network (tried {PUBLIC}:80)"
"""What a fetch of a public name ends with here: it passed the gate and the check, and was being sent."""


class Questions:
    """The person at the terminal: answers every question with ``answer`` and keeps (tool, args, reason)."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any], str]] = []

    async def __call__(self, tool: str, args: dict[str, Any], reason: str) -> bool:
        self.asked.append((tool, args, reason))
        return self.answer


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name in ``*.example.*`` resolves to ``PUBLIC``; the list records each name asked for, in order."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if ".example." not in str(host):
            return real(host, port, *args, **kwargs)
        asked.append(str(host))
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


@pytest.fixture
def redirecting() -> Iterator[tuple[int, dict[str, str]]]:
    """A loopback server answering each path in its dict with a redirect there; its port and the dict."""
    routes: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302 if self.path in routes else 200)
            if self.path in routes:
                self.send_header("Location", routes[self.path])
            self.send_header("Content-Length", "6")
            self.end_headers()
            self.wfile.write(b"inside")

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield int(httpd.server_address[1]), routes
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def stores(chrysalis_home: Path) -> Iterator[Stores]:
    with Stores.open(chrysalis_home) as opened:
        yield opened


def _gate(
    tmp_path: Path,
    stores: Stores,
    events: list[Event],
    approver: Approver | None,
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    domains: ApprovedDomains | None = None,
    **flags: Any,
) -> GatedTools:
    settings = load_settings({"workspace": tmp_path, "level": 2} | flags)
    return GatedTools.for_run(
        settings,
        tools or {"web_fetch": web_fetch},
        run_id="r1",
        checkpoints=stores.checkpoints,
        emit=events.append,
        approver=approver,
        limits=RunLimits.of(settings, plan_for(settings.priority)),
        policy=Policy.from_settings(settings, domains),
    )


def _fetch(gate: GatedTools, url: str, call_id: str = "c1") -> dict[str, Any]:
    return asyncio.run(gate.call("web_fetch", {"url": url}, call_id))


def _results(events: list[Event]) -> list[tuple[str, str | None]]:
    return [(e.decision, e.error) for e in events if isinstance(e, ToolResultEvent)]


def test_a_new_domain_is_asked_once_then_remembered_across_calls_and_runs(
    tmp_path: Path, chrysalis_home: Path, resolved: list[str]
) -> None:
    script = ScriptedModel(
        [
            tool("web_fetch", url="http://docs.example.com/a"),
            tool("web_fetch", url="http://docs.example.com/b"),
            final("read twice"),
            tool("web_fetch", url="http://DOCS.example.com./c"),  # the same host, however spelled
            tool("web_fetch", url="http://news.example.org/"),  # another domain: asked again
            final("read again"),
        ]
    )
    person, events = Questions(), list[Event]()
    settings = load_settings({"workspace": tmp_path, "level": 2})
    session = AgentSession(settings, model=script.model(), approver=person, on_event=events.append)
    try:
        asyncio.run(session.run("read the docs"))
        asyncio.run(session.run("read them again"))
    finally:
        session.close()

    assert [(tool_name, args["url"]) for tool_name, args, _ in person.asked] == [
        ("web_fetch", "http://docs.example.com/a"),
        ("web_fetch", "http://news.example.org/"),
    ]
    assert person.asked[0][2] == (
        "'web_fetch' wants to reach docs.example.com, a domain not approved in this session "
        "(http://docs.example.com/a). Approving allows docs.example.com for the rest of the session."
    )
    assert _results(events) == [("approved", SENT), ("allow", SENT), ("allow", SENT), ("approved", SENT)]
    assert [e.approved for e in events if isinstance(e, ApprovalRequest)] == [True, True]
    assert list(session.domains) == ["docs.example.com", "news.example.org"]


@pytest.mark.parametrize(
    ("approver", "how"),
    [(Questions(answer=False), "the user declined it"), (None, "no one can approve it here (rerun with --yes)")],
    ids=["declined", "no-one-to-ask"],
)
def test_a_domain_not_approved_is_a_tool_error_naming_it_and_asked_again_next_time(
    tmp_path: Path, stores: Stores, resolved: list[str], approver: Questions | None, how: str
) -> None:
    events: list[Event] = []
    gate = _gate(tmp_path, stores, events, approver)

    result = _fetch(gate, "https://docs.example.com/page")

    refusal = f"refused: docs.example.com was not approved: {how}."
    assert result == {"ok": False, "error": refusal}
    assert _results(events) == [("declined", refusal)]  # a refusal, counted as one (the second ends the run)
    assert resolved == []  # refused before the name was looked up
    assert approver is None or len(approver.asked) == 1
    again = gate.policy.decide(web_fetch, web_fetch.args.model_validate({"url": "https://docs.example.com/other"}))
    assert (again.kind, again.domain) == ("ask", "docs.example.com")  # only a yes is remembered


def test_yes_allows_a_public_host_unasked_and_still_refuses_loopback(
    tmp_path: Path, stores: Stores, resolved: list[str], redirecting: tuple[int, dict[str, str]]
) -> None:
    port, _ = redirecting
    person, events = Questions(), list[Event]()
    gate = _gate(tmp_path, stores, events, person, yes=True)

    assert _fetch(gate, "http://docs.example.com/") == {"ok": False, "error": SENT}
    loopback = _fetch(gate, f"http://127.0.0.1:{port}/", "c2")

    assert person.asked == []
    assert loopback["error"] == (
        "refused: 127.0.0.1 is a loopback address; the web tools reach only public addresses. "
        "A [permissions] allow rule web_fetch(domain:127.0.0.1) allows it."
    )


def test_a_loopback_address_is_not_asked_about_since_no_yes_could_reach_it(
    tmp_path: Path, stores: Stores, redirecting: tuple[int, dict[str, str]]
) -> None:
    port, _ = redirecting
    person, events = Questions(), list[Event]()

    result = _fetch(_gate(tmp_path, stores, events, person), f"http://127.0.0.1:{port}/")

    assert person.asked == []
    assert (result["error"] or "").startswith("refused: 127.0.0.1 is a loopback address")


def test_level_3_reaches_a_public_host_without_asking(tmp_path: Path, stores: Stores, resolved: list[str]) -> None:
    person, events = Questions(), list[Event]()

    result = _fetch(_gate(tmp_path, stores, events, person, level=3), "http://docs.example.com/")

    assert result == {"ok": False, "error": SENT}
    assert person.asked == [] and _results(events) == [("allow", SENT)]


@pytest.mark.parametrize("flags", [{"level": 2}, {"level": 3, "yes": True}], ids=["asking", "level-3-yes"])
def test_a_deny_rule_wins_over_an_allow_rule_yes_level_3_and_an_earlier_approval(
    tmp_path: Path, stores: Stores, resolved: list[str], flags: dict[str, Any]
) -> None:
    person, events = Questions(), list[Event]()
    permissions = {"deny": ["web_fetch(domain:example.com)"], "allow": ["web_fetch(domain:docs.example.com)"]}
    domains = ApprovedDomains(["docs.example.com"])
    gate = _gate(tmp_path, stores, events, person, domains=domains, permissions=permissions, **flags)
    search = make_web_search("http://search.example.com/html/")
    searching = _gate(tmp_path, stores, [], person, tools={"web_search": search}, permissions=permissions, **flags)

    fetched = _fetch(gate, "http://docs.example.com/")
    searched = asyncio.run(searching.call("web_search", {"query": "anything"}, "c2"))

    assert (fetched["error"] or "").startswith("Refused by policy: the rule deny web_fetch(domain:example.com)")
    assert searched["error"] == (
        "refused: search.example.com is forbidden by the rule deny web_fetch(domain:example.com) in [permissions]."
    )
    assert person.asked == [] and resolved == []


@pytest.mark.parametrize("rule", ["web_fetch(domain:example.com)", "web_fetch", "*"])
def test_an_allow_rule_covering_the_call_asks_nothing(
    tmp_path: Path, stores: Stores, resolved: list[str], rule: str
) -> None:
    person, events = Questions(), list[Event]()
    gate = _gate(tmp_path, stores, events, person, permissions={"allow": [rule]})

    assert _fetch(gate, "http://docs.example.com/") == {"ok": False, "error": SENT}
    assert person.asked == []


def test_web_search_asks_once_for_its_provider_domain(tmp_path: Path, stores: Stores, resolved: list[str]) -> None:
    person, events = Questions(), list[Event]()
    search = make_web_search("http://search.example.com/html/")
    gate = _gate(tmp_path, stores, events, person, tools={"web_search": search})

    for n in (1, 2):
        result = asyncio.run(gate.call("web_search", {"query": f"query {n}"}, f"c{n}"))
        assert "tests may not use the network" in (result["error"] or "")

    assert [(name, reason.split(",")[0]) for name, _, reason in person.asked] == [
        ("web_search", "'web_search' wants to reach search.example.com")
    ]


def test_a_redirect_to_a_domain_not_approved_is_refused_before_it_is_resolved(
    tmp_path: Path, stores: Stores, resolved: list[str], redirecting: tuple[int, dict[str, str]]
) -> None:
    port, routes = redirecting
    routes["/go"] = "http://news.example.org/story"
    routes["/known"] = "http://docs.example.com/page"
    person, events = Questions(), list[Event]()
    allowed = {"allow": ["web_fetch(domain:127.0.0.1)"]}
    gate = _gate(tmp_path, stores, events, person, domains=ApprovedDomains(["docs.example.com"]), permissions=allowed)

    refused = _fetch(gate, f"http://127.0.0.1:{port}/go")
    followed = _fetch(gate, f"http://127.0.0.1:{port}/known", "c2")

    assert refused["error"] == (
        "refused: news.example.org was not approved in this session (a redirect to http://news.example.org/story); "
        "fetch http://news.example.org/story itself to ask the user about news.example.org."
    )
    assert followed["error"] == SENT  # the session approved docs.example.com: the redirect goes on
    assert resolved == ["docs.example.com"] and person.asked == []


@pytest.mark.parametrize("flags", [{"level": 3}, {"yes": True}], ids=["level-3", "--yes"])
def test_where_no_domain_is_asked_about_a_redirect_to_a_new_public_one_is_followed(
    tmp_path: Path, stores: Stores, resolved: list[str], redirecting: tuple[int, dict[str, str]], flags: dict[str, Any]
) -> None:
    port, routes = redirecting
    routes["/go"] = "http://news.example.org/story"
    gate = _gate(tmp_path, stores, [], None, permissions={"allow": ["web_fetch(domain:127.0.0.1)"]}, **flags)

    assert _fetch(gate, f"http://127.0.0.1:{port}/go")["error"] == SENT
    assert resolved == ["news.example.org"]


def test_the_policy_asks_about_the_host_the_check_would_reach_and_remembers_only_a_yes() -> None:
    policy = Policy(level=1, mode="code")
    asked = policy.decide(web_fetch, web_fetch.args.model_validate({"url": "https://Docs.Example.com:8443/x"}))
    other = Policy(level=1, mode="code", rules=(Rule.parse("web_fetch(domain:docs.example.com)", "ask", "t"),))

    assert (asked.kind, asked.by, asked.allow_with) == ("ask", "confirmation", "--yes")
    assert asked.domain == "docs.example.com"  # as the check writes it: lower case, no port
    policy.remember(asked)
    assert policy.decide(web_fetch, web_fetch.args.model_validate({"url": "http://docs.example.com/y"})).allowed
    assert policy.narrowed(level=1).domains is policy.domains  # a sub-agent's policy shares the session's memory
    ruled = other.decide(web_fetch, web_fetch.args.model_validate({"url": "https://docs.example.com/"}))
    assert (ruled.by, ruled.domain) == ("rule", None)  # an ask rule asks every time: nothing to remember
