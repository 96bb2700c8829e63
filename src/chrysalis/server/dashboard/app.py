"""``chrysalis ui``: a read-only dashboard over the stores, served on 127.0.0.1 to whoever holds its token.

Loopback only, and a fresh random token per start (``secrets.token_urlsafe``) on every request: a
page of another site in the same browser cannot guess it, and another user of the machine cannot
read it (it is printed, never written to disk). The URL it prints carries the token; the first
request moves it into an HttpOnly, SameSite=Strict cookie and redirects to the same page without
it, so links work and the token does not sit in the address bar. Anything without a valid token,
including unknown paths, gets 403 and a short page that says to use the printed URL.

The pages are server-rendered HTML with inline CSS and no script (the Content-Security-Policy
forbids scripts and every outside source), so nothing is fetched from the network. Pages:
``pages.py`` (runs, stats, queue) and ``views.py`` (archive grid, plan trees).
"""

from __future__ import annotations

import hmac
import secrets
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from chrysalis.config import Settings
from chrysalis.errors import EXIT_OK, ChrysalisError, UsageError
from chrysalis.server.dashboard import pages
from chrysalis.server.dashboard.data import DashboardData
from chrysalis.server.dashboard.views import archive_page, decompositions_page

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HEADERS", "TokenGate", "create_app", "serve_dashboard"]

HOST = "127.0.0.1"
HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
"""On every response: nothing from elsewhere, no scripts, no framing, no token in a Referer, nothing cached."""


class TokenGate:
    """ASGI middleware: only requests with the token (``?token=`` or the cookie) pass; every reply gets ``HEADERS``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        """Guard ``app`` with ``token``."""
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 403 or a redirect without the token, else pass the request on; add the headers either way."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *((k.encode(), v.encode()) for k, v in HEADERS.items()),
                ]
            await send(message)

        from starlette.requests import Request

        refused = self._check(Request(scope))
        if refused is not None:
            await refused(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _check(self, request: Request) -> Response | None:
        from starlette.responses import HTMLResponse, RedirectResponse

        cookie = _cookie_name(request)
        given = request.query_params.get("token")
        if given is not None:
            if not self._matches(given):
                return HTMLResponse(pages.forbidden_page(), status_code=403)
            rest = [(key, value) for key, value in request.query_params.multi_items() if key != "token"]
            response = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
            response.set_cookie(cookie, given, httponly=True, samesite="strict", path="/")
            return response
        if not self._matches(request.cookies.get(cookie, "")):
            return HTMLResponse(pages.forbidden_page(), status_code=403)
        return None

    def _matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self._token)


def _cookie_name(request: Request) -> str:
    """Cookies ignore ports: two dashboards on 127.0.0.1 keep theirs apart by the port in the name."""
    port = request.url.port
    return f"chrysalis_ui_{port}" if port else "chrysalis_ui"


def create_app(settings: Settings, token: str) -> ASGIApp:
    """The dashboard as an ASGI app over the stores ``settings`` name, open to requests with ``token``."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    data = DashboardData(settings)

    def html(render: Callable[[Request], tuple[int, str]]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:  # sync: Starlette runs it in a thread, off the event loop
            try:
                status, body = render(request)
            except ChrysalisError as exc:  # a store that cannot be opened: its message says how to fix it
                status, body = 500, pages.problem_page(str(exc))
            return HTMLResponse(body, status_code=status)

        return endpoint

    def run(request: Request) -> tuple[int, str]:
        summary, events = data.run(request.path_params["run_id"])
        if summary is None:
            return 404, pages.missing_page("run by that id in the traces", "/", "/")
        return 200, pages.run_page(summary, events)

    def queued(request: Request) -> tuple[int, str]:
        record, events, problem = data.queued_run(request.path_params["run_id"])
        if record is None:
            return (
                (503, pages.queue_page(None, problem))
                if problem
                else (404, pages.missing_page("queued run by that id", "/queue", "/queue"))
            )
        return 200, pages.queued_run_page(record, events)

    def queue(_request: Request) -> tuple[int, str]:
        view = data.queue()
        return 200, pages.queue_page(view.runs, view.problem)

    routes = [
        Route("/", html(lambda _r: (200, pages.runs_page(data.runs())))),
        Route("/runs/{run_id}", html(run)),
        Route("/stats", html(lambda _r: (200, pages.stats_page(*data.stats())))),
        Route("/archive", html(lambda _r: (200, archive_page(data.archives())))),
        Route("/decompositions", html(lambda _r: (200, decompositions_page(data.decompositions(), data.patterns())))),
        Route("/queue", html(queue)),
        Route("/queue/{run_id}", html(queued)),
    ]

    async def not_found(_request: Request, _exc: Exception) -> Response:
        return HTMLResponse(pages.missing_page("page here", "/", ""), status_code=404)

    app: Starlette = Starlette(routes=routes, exception_handlers={404: not_found})
    return TokenGate(app, token)


def serve_dashboard(settings: Settings, *, port: int) -> int:
    """Print the dashboard's URL and serve it on 127.0.0.1 until Ctrl-C (which stops it: exit 0).

    The socket is bound and listening before the URL is printed, so whoever reads the URL can
    connect at once (a connection waits in the backlog until uvicorn accepts it).

    Raises:
        UsageError: the port is taken or not allowed (the message says to pick another or 0).
    """
    import uvicorn

    listener = _listen(port)
    token = secrets.token_urlsafe(24)
    bound = listener.getsockname()[1]
    print(f"http://{HOST}:{bound}/?token={token}", flush=True)
    print(
        f"The Chrysalis dashboard is on {HOST}:{bound} (this machine only); open the URL above. Ctrl-C stops it.",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        create_app(settings, token), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=3
    )
    try:
        uvicorn.Server(config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn shut down cleanly, then re-raised the Ctrl-C: stopping is the way out
        pass
    finally:
        listener.close()
    print("Dashboard stopped.", file=sys.stderr, flush=True)
    return EXIT_OK


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: a free port)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((HOST, port))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        raise UsageError(
            f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror}). Pick another port, "
            "or --port 0 for a free one."
        ) from exc
    return listener
