"""Fetch a web page as plain text, and search the web through DuckDuckGo's HTML endpoint.

httpx is imported only when a tool runs, so listing tools costs nothing. Pages are reduced to
their visible text (no scripts, styles or markup) because the embedded model's context is small.
When the machine has no network, both tools say so plainly instead of showing a stack of
connection errors, so the model stops trying and works with what it has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Annotated
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

from pydantic import Field

from chrysalis.tls import tls_context
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, at_most, truncate
from chrysalis.tools.egress import EgressRefused, HostRules, Target, Unresolved, check

__all__ = [
    "DUCKDUCKGO_URL",
    "SearchHit",
    "WebFetchArgs",
    "WebSearchArgs",
    "html_to_text",
    "make_web_search",
    "parse_duckduckgo",
    "web_fetch",
    "web_search",
]

DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/"
FETCH_TIMEOUT = 15.0
MAX_REDIRECTS = 5
"""Redirects followed per fetch, each through the egress check (``chrysalis.tools.egress``)."""
MAX_PAGE_CHARS = 8_000
MAX_DOWNLOAD_BYTES = 2_000_000
"""A page is read up to this size: enough for any article, and a huge download cannot fill the memory."""
_USER_AGENT = "Mozilla/5.0 (compatible; chrysalis-forge/0.1)"
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_BLOCK_TAGS = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer", "pre", "hr"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "title", "blockquote", "dt", "dd"}
)


class _TextExtractor(HTMLParser):
    """Collects visible text, with a line break at each block element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._pre += tag == "pre"
        if tag in _SKIP_TAGS:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self._pre = max(0, self._pre - (tag == "pre"))
        if tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data if self._pre else re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    """The visible text of an HTML page: one line per block, runs of blank space collapsed."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = (re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


@dataclass(frozen=True)
class _Page:
    """What a GET brought back: status, content type and (at most ``MAX_DOWNLOAD_BYTES`` of) the body."""

    status: int
    reason: str
    kind: str
    text: str


class _Refused(ToolError):
    """The egress check refused a hop: the message says why and which rule would allow it."""


def _get(url: str, hosts: HostRules) -> _Page:
    """GET ``url`` through the egress check, following up to ``MAX_REDIRECTS`` redirects, each checked again.

    A redirect back to ``url``'s own host needs no approval of its own: the call was decided for that host.

    Raises:
        _Refused: the check refused a hop (its message says why).
        ToolError: there was no connection ('the network is
            unreachable'), no answer in time, or too many redirects.
    """
    import httpx

    try:
        target = check(url, hosts)
        origin = target.host
        for _hop in range(MAX_REDIRECTS + 1):
            page, location = _get_checked(target)
            if location is None:
                return page
            target = check(urljoin(target.url, location), hosts, redirect=True, origin=origin)
    except EgressRefused as exc:
        raise _Refused(str(exc)) from None
    except (Unresolved, httpx.ConnectError, httpx.ConnectTimeout, httpx.NetworkError, httpx.ProxyError) as exc:
        raise ToolError(f"the network is unreachable from here: {exc or type(exc).__name__}") from None
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer within {FETCH_TIMEOUT:g}s.") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"Fetching {url} failed: {exc}") from None
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times; fetch the final address directly.")


def _get_checked(target: Target) -> tuple[_Page, str | None]:
    """``_get_once`` at each checked address in the resolver's order, until one can be reached.

    Like a browser's fallback: a name whose first address is IPv6, on a machine without IPv6, is
    fetched at its IPv4 address. Only addresses the check judged are ever tried.
    """
    import httpx

    for address in target.addresses[:-1]:
        try:
            return _get_once(target, address)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            continue
    return _get_once(target, target.addresses[-1])


def _get_once(target: Target, address: str) -> tuple[_Page, str | None]:
    """One GET to ``address``, one of the checked ones: the page, and the ``Location`` to follow when it redirects.

    The connection goes to ``address`` (nothing is resolved again); the name travels as the Host
    header and the TLS server name, which the certificate must match. A fresh client per hop, so a
    connection verified for one name never carries a request for another, and no proxy from the
    environment (it would resolve the name itself).
    """
    import httpx

    extensions = {"sni_hostname": target.server_name} if target.server_name else {}
    headers = {"User-Agent": _USER_AGENT, "Host": target.host_header}
    with (
        httpx.Client(timeout=FETCH_TIMEOUT, follow_redirects=False, trust_env=False, verify=tls_context()) as client,
        client.stream("GET", target.pinned(address), headers=headers, extensions=extensions) as response,
    ):
        location = response.headers.get("location")
        if response.is_redirect and location:
            return _Page(response.status_code, response.reason_phrase, "", ""), location
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) >= MAX_DOWNLOAD_BYTES:
                break
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        text = bytes(body).decode(response.encoding or "utf-8", errors="replace")
        return _Page(response.status_code, response.reason_phrase, kind, text), None


class WebFetchArgs(ToolArgs):
    """Arguments of web_fetch."""

    url: str = Field(description="An http:// or https:// address.")


def _web_fetch(args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
    parsed = urlparse(args.url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ToolError(f"{args.url!r} is not an http(s) address; give a full URL like https://example.com/page.")
    page = _get(parsed.geturl(), ctx.hosts)
    if page.status >= 400:
        raise ToolError(f"{args.url} answered HTTP {page.status} {page.reason}.")
    kind = page.kind
    if kind and not (kind.startswith("text/") or kind.endswith(("json", "xml", "javascript"))):
        raise ToolError(f"{args.url} is {kind}, not text; only text pages can be read.")
    body = page.text
    text = html_to_text(body) if "html" in kind or (not kind and "<html" in body[:1000].lower()) else body.strip()
    return ToolResult.success(truncate(text or "(the page has no text)", MAX_PAGE_CHARS))


web_fetch = ToolSpec(
    name="web_fetch",
    description="Download a web page (http or https) and return its text without HTML markup.",
    args=WebFetchArgs,
    effect="network",
    level=1,
    run=_web_fetch,
    reaches=lambda args: getattr(args, "url", None),
)


@dataclass(frozen=True)
class SearchHit:
    """One search result: title, address and snippet."""

    title: str
    url: str
    snippet: str = ""


class _DuckDuckGoParser(HTMLParser):
    """Picks result links (class ``result__a``) and snippets (class ``result__snippet``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hits: list[dict[str, str]] = []
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        classes = (attr.get("class") or "").split()
        if tag == "a" and "result__a" in classes:
            self.hits.append({"title": "", "url": _real_url(attr.get("href") or ""), "snippet": ""})
            self._field = "title"
        elif "result__snippet" in classes and self.hits:
            self._field = "snippet"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("a", "td", "div"):
            self._field = None

    def handle_data(self, data: str) -> None:
        if self._field and self.hits:
            self.hits[-1][self._field] += data


def _real_url(href: str) -> str:
    """DuckDuckGo wraps result links as ``//duckduckgo.com/l/?uddg=REAL``; unwrap them."""
    target = parse_qs(urlparse(href).query).get("uddg")
    return target[0] if target else href


def parse_duckduckgo(html: str) -> list[SearchHit]:
    """The results on a DuckDuckGo HTML results page, in page order."""
    parser = _DuckDuckGoParser()
    parser.feed(html)
    parser.close()
    return [
        SearchHit(title=" ".join(h["title"].split()), url=h["url"], snippet=" ".join(h["snippet"].split()))
        for h in parser.hits
        if h["url"]
    ]


class WebSearchArgs(ToolArgs):
    """Arguments of web_search."""

    query: str = Field(description="What to search for.")
    max_results: Annotated[int, at_most(10)] = Field(default=5, ge=1, le=10, description="How many results to return.")


def make_web_search(endpoint: str = DUCKDUCKGO_URL) -> ToolSpec:
    """A web_search tool that queries ``endpoint`` (DuckDuckGo's HTML page; tests pass a local server)."""

    def run(args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
        if not args.query.strip():
            raise ToolError("The query is empty.")
        try:
            page = _get(endpoint + "?" + urlencode({"q": args.query}), ctx.hosts)
        except _Refused:
            raise  # a refusal is not a missing network: it says what would allow it
        except ToolError as exc:
            raise ToolError(f"Web search needs network access, which is not available here ({exc}).") from None
        if page.status >= 400:
            raise ToolError(f"The search engine answered HTTP {page.status}; try again later.")
        hits = parse_duckduckgo(page.text)[: args.max_results]
        if not hits:
            return ToolResult.success(f"No results for {args.query!r}.")
        lines = [f"{n}. {h.title}\n   {h.url}\n   {h.snippet}".rstrip() for n, h in enumerate(hits, start=1)]
        return ToolResult.success("\n".join(lines))

    return ToolSpec(
        name="web_search",
        description="Search the web; returns titles, addresses and snippets of the top results.",
        args=WebSearchArgs,
        effect="network",
        level=1,
        run=run,
        reaches=lambda _args: endpoint,  # the provider's domain is asked about once, like any other
    )


web_search = make_web_search()
