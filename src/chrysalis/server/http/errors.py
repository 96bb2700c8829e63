"""One shape for every refusal of the HTTP service, the API key's gate, and a schema that says both.

Every error is ``{"error": {"field": NAME or null, "message": TEXT}}``. FastAPI answers a body that
fails validation with 422 and a list in its own shape; here it is a 400 naming the first field at
fault, with the config's message where the config judged it (``--level 9``'s words). The schema at
``/openapi.json`` is rewritten to match: no 422, a 400 on ``POST /v1/runs``, and with a key a bearer
scheme and a 401 on every operation.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from chrysalis.server.http.runs import Finished, NoSuchRun, Unacceptable

if TYPE_CHECKING:
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

__all__ = ["install_error_handlers"]

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def error_response(status: int, field: str | None, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The service's error body with ``status``."""
    from fastapi.responses import JSONResponse

    return JSONResponse({"error": {"field": field, "message": message}}, status_code=status, headers=headers)


def install_error_handlers(app: FastAPI, api_key: str | None, *, max_level: int = 3) -> None:
    """Map every error to the one body, guard the app with ``api_key`` (when set), and make the schema say so.

    ``max_level`` (the server's level) is the schema's maximum for a request's ``level``.
    """
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException

    async def invalid(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        field, message = _first_problem(exc.errors())
        return error_response(400, field, message)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette's Allow names the first route's methods only
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return error_response(exc.status_code, None, str(exc.detail), headers)

    async def unacceptable(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Unacceptable)
        return error_response(400, exc.field, exc.message)

    async def missing(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(404, "id", str(exc))

    async def finished(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(409, "id", str(exc))

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Unacceptable, unacceptable)
    app.add_exception_handler(NoSuchRun, missing)
    app.add_exception_handler(Finished, finished)
    if api_key:
        app.add_middleware(BearerGate, api_key=api_key)
    _precise_schema(app, guarded=bool(api_key), max_level=max_level)


def _first_problem(errors: Any) -> tuple[str | None, str]:
    """The field and message of the first of pydantic's errors, in words a client can act on."""
    error = dict(next(iter(errors), {}))
    kind = str(error.get("type", ""))
    where = [part for part in error.get("loc", ()) if part not in ("body", "query")]
    if kind == "json_invalid":
        return None, f"The body is not valid JSON ({error.get('ctx', {}).get('error', 'cannot be parsed')})."
    if not where and kind == "missing":
        return "task", 'The body is missing: send a JSON object such as {"task": "fix the failing test"}.'
    if not where or not isinstance(where[0], str):
        return None, 'The body must be a JSON object such as {"task": "fix the failing test"}.'
    field = str(where[0])
    if kind == "extra_forbidden":
        return field, f"Unknown field {field!r}: a run takes task, model, base_url, level, mode, workspace, urgency."
    if kind == "missing":
        return field, f"The field {field!r} is required."
    cause = error.get("ctx", {}).get("error")
    return field, str(cause) if kind == "value_error" and cause else f"{field}: {error.get('msg', 'not allowed')}."


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at this path (``GET /v1/runs/ID`` and ``DELETE /v1/runs/ID`` are two routes)."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


class BearerGate:
    """ASGI middleware: a request without ``Authorization: Bearer KEY`` gets 401 (the key compared in constant time)."""

    def __init__(self, app: Callable[[_Scope, _Receive, _Send], Awaitable[None]], *, api_key: str) -> None:
        self.app = app
        self.expected = f"Bearer {api_key}".encode()

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http" or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": {
                    "field": "Authorization",
                    "message": "Send `Authorization: Bearer KEY` with the key in the server's CHRYSALIS_API_KEY.",
                }
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", b"Bearer"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _allowed(self, scope: _Scope) -> bool:
        given = next((value for name, value in scope.get("headers", ()) if name == b"authorization"), b"")
        return hmac.compare_digest(given, self.expected)


def _precise_schema(app: FastAPI, *, guarded: bool, max_level: int) -> None:
    """Rewrite FastAPI's schema to say what the service does.

    400 instead of 422, the server's level as the most a run may ask, and the bearer scheme and
    401s when a key guards the app.
    """
    from fastapi.openapi.utils import get_openapi

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            _rewrite(document, guarded=guarded, max_level=max_level)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]


def _rewrite(document: dict[str, Any], *, guarded: bool, max_level: int) -> None:
    body = {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
    error = {"description": "Refused", "content": {"application/json": body}}
    components = document.setdefault("components", {})
    schemas = components.get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    for option in schemas.get("RunRequest", {}).get("properties", {}).get("level", {}).get("anyOf", []):
        if option.get("type") == "integer":
            option["maximum"] = max_level
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            if "requestBody" in operation:
                responses.setdefault("400", {**error, "description": "A field is missing or not allowed"})
            if guarded:
                responses["401"] = {**error, "description": "No or wrong `Authorization: Bearer KEY`"}
    if guarded:
        components.setdefault("securitySchemes", {})["bearer"] = {"type": "http", "scheme": "bearer"}
        document["security"] = [{"bearer": []}]
