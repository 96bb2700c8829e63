"""The HTTP service's routes: thin handlers over ``RunService`` and the stores.

Imported only when the service starts (``create_app``), so it imports FastAPI at the top: FastAPI
reads the handlers' annotations, which must name what this module's globals hold.
The store calls are blocking (SQLite, DBOS's client), so each runs in a worker thread and the event
loop stays free for the other clients and for the event streams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Header, Query
from sse_starlette import EventSourceResponse

from chrysalis import __version__
from chrysalis.server.http.models import (
    ErrorBody,
    Health,
    ModelsView,
    RunCreated,
    RunList,
    RunRequest,
    RunStatus,
    RunView,
    StatsView,
)

if TYPE_CHECKING:
    from chrysalis.server.http.runs import RunService

__all__ = ["EVENTS_POLL_S", "LIST_LIMIT", "add_routes"]

LIST_LIMIT = 500
"""The most runs one ``GET /v1/runs`` lists."""

EVENTS_POLL_S = 0.1
"""How often an event stream looks for the run's new events (the worker writes them to the database)."""

_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "No run with this id"}}
_SSE = {
    "description": "Server-sent events: each unnamed event's `data` is one `--json` event; a last `end` event "
    "carries the run's final status",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


def add_routes(app: FastAPI, service: RunService) -> None:
    """Add the ``/v1`` routes over ``service`` to ``app``."""

    @app.post(
        "/v1/runs",
        status_code=202,
        response_model=RunCreated,
        tags=["runs"],
        responses={400: {"model": ErrorBody, "description": "A field is missing or not allowed"}},
    )
    async def create_run(request: RunRequest) -> RunCreated:
        """Queue a run of ``task`` with the server's settings and the fields given (a level may only be lowered)."""
        record = await asyncio.to_thread(service.submit, request)
        return RunCreated(id=record.id, status="queued")

    @app.get(
        "/v1/runs",
        response_model=RunList,
        tags=["runs"],
        responses={400: {"model": ErrorBody, "description": "A query parameter is not allowed"}},
    )
    async def list_runs(
        limit: Annotated[int, Query(ge=1, le=LIST_LIMIT, description="How many runs, newest first")] = 50,
        status: Annotated[RunStatus | None, Query(description="Only the runs in this status")] = None,
    ) -> RunList:
        """The latest runs, newest first (as ``chrysalis queue`` lists them), each as ``GET /v1/runs/{id}`` shows it."""
        return RunList(runs=await asyncio.to_thread(service.latest, limit, status))

    @app.get("/v1/runs/{run_id}", response_model=RunView, responses=_NOT_FOUND, tags=["runs"])
    async def get_run(run_id: str) -> RunView:
        """The run's status (queued, running, done, failed, cancelled), answer, steps, tokens and cost."""
        return await asyncio.to_thread(service.view, run_id)

    finished: dict[int | str, dict[str, Any]] = {
        409: {"model": ErrorBody, "description": "The run has already finished"}
    }

    @app.delete(
        "/v1/runs/{run_id}",
        status_code=202,
        response_model=RunView,
        tags=["runs"],
        responses={**_NOT_FOUND, **finished},
    )
    async def cancel_run(run_id: str) -> RunView:
        """Cancel the run: a queued one never starts, a running one stops at its next step."""
        return await asyncio.to_thread(service.cancel, run_id)

    @app.get(
        "/v1/runs/{run_id}/events",
        response_class=EventSourceResponse,
        response_model=None,
        tags=["runs"],
        responses={**_NOT_FOUND, 200: _SSE},
    )
    async def run_events(
        run_id: str, last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None
    ) -> EventSourceResponse:
        """The run's events, those already recorded first, then live, until the run has finished."""
        await asyncio.to_thread(service.view, run_id)  # 404 before the stream starts
        after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
        return EventSourceResponse(_stream(service, run_id, after), ping=15)

    @app.get("/v1/models", response_model=ModelsView, tags=["catalogue"])
    async def models() -> ModelsView:
        """The model catalogue (built-in, then ``$CHRYSALIS_HOME/models.json``) and the ``auto`` candidates."""
        return await asyncio.to_thread(_models, service)

    @app.get("/v1/stats", response_model=StatsView, tags=["catalogue"])
    async def stats() -> StatsView:
        """The eval store's outcomes by profile, task type and model, and the latest runs (``chrysalis stats``)."""
        return await asyncio.to_thread(_stats, service)

    @app.get("/v1/health", response_model=Health, tags=["service"])
    async def health() -> Health:
        """The service answers."""
        return Health(status="ok", version=__version__)


async def _stream(service: RunService, run_id: str, after: int) -> AsyncIterator[dict[str, str]]:
    """Each recorded event as an unnamed SSE message (``id`` its position), then one ``end`` event.

    The run's events are the ``--json`` lines, so ``EventSource.onmessage`` sees exactly those; the
    ``end`` event, named so it needs its own listener, says the run finished and how.
    """
    while True:
        events, finished = await asyncio.to_thread(service.events, run_id, after)
        for position, event in events:
            after = position
            yield {"id": str(position), "data": json.dumps(event)}
        if finished:  # read before the events: whatever the run recorded before it finished was just sent
            view = await asyncio.to_thread(service.view, run_id)
            yield {"event": "end", "data": json.dumps({"id": run_id, "status": view.status})}
            return
        await asyncio.sleep(EVENTS_POLL_S)


def _models(service: RunService) -> ModelsView:
    from chrysalis.errors import ConfigError
    from chrysalis.llm.model_catalog import Catalog
    from chrysalis.llm.routing import auto_candidates

    settings = service.settings
    catalog = Catalog.load(settings.home)
    try:
        auto = list(auto_candidates(settings))
    except ConfigError:
        auto = []
    return ModelsView.model_validate(
        {"models": [card.to_json() for card in catalog], "auto": auto, "default": settings.model}
    )


def _stats(service: RunService) -> StatsView:
    from chrysalis.stores import Stores

    home = service.settings.home
    if not service.settings.db_path.is_file():
        return StatsView(profiles=[], recent_runs=[])
    with Stores.open(home) as stores:
        return StatsView(profiles=stores.evals.summary(), recent_runs=stores.traces.runs(limit=20))
