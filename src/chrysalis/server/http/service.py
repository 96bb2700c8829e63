"""``chrysalis serve --http``: the agent as a small HTTP API on 127.0.0.1 (FastAPI on uvicorn).

    POST   /v1/runs              queue a run (202 {"id", "status"})
    GET    /v1/runs/{id}         its status, answer, steps, tokens, cost
    GET    /v1/runs/{id}/events  its events as server-sent events (the ``--json`` lines), past then live
    DELETE /v1/runs/{id}         cancel it (202; 409 when it has already finished)
    GET    /v1/models            the model catalogue;  GET /v1/stats: the eval store's summary
    GET    /v1/health            the service answers;  GET /openapi.json: the schema

Runs go through the durable queue (``runs``). Every error is ``{"error": {"field", "message"}}``:
FastAPI's own 422 for a bad body is answered as 400, so a client handles one status for one mistake.
The service listens on loopback unless ``--host`` says otherwise, and then only with ``CHRYSALIS_API_KEY``
set; with a key, every request needs ``Authorization: Bearer KEY``. docs/http.md has the rest.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from typing import TYPE_CHECKING

from chrysalis.config import Settings
from chrysalis.errors import EXIT_INTERRUPTED, UsageError

if TYPE_CHECKING:
    import socket

    import uvicorn
    from fastapi import FastAPI

    from chrysalis.server.http.runs import RunService

__all__ = ["API_KEY_ENV", "check_exposure", "create_app", "serve_http"]

API_KEY_ENV = "CHRYSALIS_API_KEY"


def check_exposure(host: str, api_key: str | None) -> None:
    """Refuse to listen beyond this machine without a key.

    Raises:
        UsageError: ``host`` is not a loopback address and no API key is set.
    """
    if _loopback(host) or api_key:
        return
    raise UsageError(
        f"--host {host} would let other machines run the agent, and {API_KEY_ENV} is not set: set "
        f"{API_KEY_ENV} to a long random secret (clients send `Authorization: Bearer KEY`), or keep "
        "the default --host 127.0.0.1."
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name other than localhost may resolve anywhere
        return False


def create_app(service: RunService, *, api_key: str | None = None) -> FastAPI:
    """The FastAPI app over ``service`` (started and stopped by the caller); ``api_key`` guards every route."""
    from fastapi import FastAPI

    from chrysalis import __version__
    from chrysalis.server.http.errors import install_error_handlers
    from chrysalis.server.http.routes import add_routes

    about = "Queue agent runs, follow their events, read the model catalogue and the eval store."
    app = FastAPI(title="Chrysalis Forge", version=__version__, description=about, docs_url=None, redoc_url=None)
    install_error_handlers(app, api_key, max_level=service.settings.level)
    add_routes(app, service)
    return app


def serve_http(settings: Settings, *, host: str, port: int, concurrency: int = 2) -> int:
    """Serve until Ctrl-C or SIGTERM (exit 130, as every command interrupted); the URL goes to stderr when ready.

    The service's own worker executes ``concurrency`` runs at once; with 0 it only queues them, for
    ``chrysalis worker`` processes (on this machine or others sharing the database) to run.

    Raises:
        UsageError: a non-loopback ``--host`` without ``CHRYSALIS_API_KEY``, a port that cannot be bound,
            or a runtime database that cannot be opened.
    """
    import signal

    api_key = os.environ.get(API_KEY_ENV, "").strip() or None  # a blank key is no key
    check_exposure(host, api_key)
    from chrysalis.server.http.runs import RunService

    service = RunService(settings, concurrency=concurrency)
    app = create_app(service, api_key=api_key)
    runs = f"its worker runs {concurrency} at a time" if concurrency else "no worker: `chrysalis worker` runs them"
    server, sock = _server(app, host, port, runs)
    signal.signal(signal.SIGTERM, _interrupt)  # uvicorn re-raises the signal it caught once it has stopped
    try:
        service.start()
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        sys.stderr.write("chrysalis serve --http: stopped; unfinished runs stay queued for the next worker.\n")
        return EXIT_INTERRUPTED
    finally:
        service.stop()
        sock.close()
    return 0


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _server(app: FastAPI, host: str, port: int, runs: str) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server and its bound socket (bound here, so ``--port 0`` can say which port it got).

    ``runs`` says who executes the queued runs, in the line announcing the service.

    Raises:
        UsageError: the address cannot be bound (in use, not this machine's).
    """
    import socket

    import uvicorn

    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and without it
    # Nagle holds a response's body behind its head until the client's delayed ACK (40 ms per request).
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc}); choose "
            "another --port (0 picks a free one)."
        ) from exc
    sock.listen(128)
    bound_host, bound_port = sock.getsockname()[:2]
    url = f"http://[{bound_host}]:{bound_port}" if ":" in bound_host else f"http://{bound_host}:{bound_port}"

    class Announcing(uvicorn.Server):
        """Says where it serves once it is ready (a test or a script waits for that line on stderr)."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if not self.should_exit:
                sys.stderr.write(
                    f"chrysalis serve --http: serving on {url} (openapi: {url}/openapi.json; {runs}); Ctrl-C stops it\n"
                )
                sys.stderr.flush()

    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3, access_log=False)
    return Announcing(config), sock
