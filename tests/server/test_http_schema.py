"""Schemathesis over the HTTP service's own schema: no server error, every answer as the schema says.

Each operation gets a bounded, derandomised set of generated requests (so the test is repeatable and
quick), sent to the app in process; ``call_and_validate`` runs schemathesis' checks on each answer
(no 5xx, documented status, content type and body, valid data accepted, invalid data refused). The
service runs without a worker, so the runs the test queues stay queued.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from chrysalis.config import Settings, load_settings
from chrysalis.server.http.runs import RunService
from chrysalis.server.http.service import create_app


def _app(service: RunService) -> Any:
    return create_app(service)


LEVEL = 2
"""The server's level: the schema's maximum for a request's level."""

# The schema is read from an app whose service never starts (making the schema opens nothing); the
# requests go to the app of the fixture below, whose service is started under the test's CHRYSALIS_HOME.
schema = schemathesis.openapi.from_dict(_app(RunService(Settings(level=LEVEL), concurrency=0)).openapi())


@pytest.fixture
def app(workspace: Path) -> Iterator[Any]:
    service = RunService(load_settings({"workspace": str(workspace), "level": LEVEL}), concurrency=0)
    service.start()
    try:
        yield _app(service)
    finally:
        service.stop()


@schema.parametrize()
@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_service_keeps_to_its_schema(case: Any, app: Any, workspace: Path) -> None:
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("workspace"), str) and _positive(case):
        body["workspace"] = str(workspace)  # "an existing folder" is more than a schema can say
    case.call_and_validate(app=app)


def _positive(case: Any) -> bool:
    return bool(case.meta is None or case.meta.generation.mode == GenerationMode.POSITIVE)
