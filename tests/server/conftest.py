"""Fixtures of the HTTP service's tests: the app over a run service, with or without its worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chrysalis.config import load_settings
from chrysalis.server.http.runs import DEFAULT_CONCURRENCY, RunService
from chrysalis.server.http.service import create_app


@pytest.fixture
def http_service(workspace: Path) -> Callable[..., AbstractContextManager[TestClient]]:
    """``http_service(worker=..., api_key=..., **flags)``: a started service (stopped on exit) and its client.

    The flags are the server's (``chrysalis serve --http`` flags); the workspace is the test's.
    """

    @contextmanager
    def started(*, worker: bool = False, api_key: str | None = None, **flags: Any) -> Iterator[TestClient]:
        settings = load_settings({"workspace": str(workspace), **flags})
        service = RunService(settings, concurrency=DEFAULT_CONCURRENCY if worker else 0)
        service.start()
        try:
            with TestClient(create_app(service, api_key=api_key), raise_server_exceptions=True) as client:
                yield client
        finally:
            service.stop()

    return started
