"""A ``ChatBackend`` over plain HTTP to any OpenAI-compatible ``/chat/completions`` endpoint.

This is the text-only path: no tool schemas go over the wire, the text tool protocol renders them
into the prompt instead. It serves models whose server has no native tool calls (many llama.cpp,
vLLM or LM Studio set-ups) and is the cheapest client we have: plain ``httpx`` and ``json``, without
an SDK that re-validates the whole history on every step.

It also owns ``RetryPolicy``, the one backoff rule every HTTP path in ``chrysalis.llm`` follows, so
the SDK-based providers and this backend retry the same errors the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatMessage, Completion
from chrysalis.tls import tls_context

if TYPE_CHECKING:  # httpx and ssl are imported on first use, keeping `import chrysalis.llm.providers` light
    import httpx

__all__ = ["OpenAICompatBackend", "RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a failed provider request again.

    Rate limits (429), server errors (5xx), timeouts and dropped connections are usually transient,
    so they are retried with exponential backoff; anything else (a bad key, an unknown model) fails
    at once, because trying again cannot help.
    """

    tries: int = 3
    """Attempts in all, the first included."""
    base_delay: float = 0.5
    """Seconds before the second attempt; each later wait doubles it."""
    max_delay: float = 8.0
    """The longest single wait, in seconds."""
    retry_statuses: frozenset[int] = field(default_factory=lambda: frozenset({408, 409, 425, 429}))
    """Statuses below 500 that are worth another try (every 5xx is)."""

    def delay(self, attempt: int) -> float:
        """Seconds to wait after the failed attempt number ``attempt`` (0-based)."""
        return float(min(self.base_delay * (2**attempt), self.max_delay))

    async def wait(self, attempt: int) -> None:
        """Sleep ``delay(attempt)`` seconds (asyncio is imported here, not at start-up)."""
        import asyncio

        await asyncio.sleep(self.delay(attempt))

    def should_retry_status(self, status: int) -> bool:
        """True for statuses that a later attempt may not get."""
        return status >= 500 or status in self.retry_statuses


class OpenAICompatBackend:
    """Text completions from an OpenAI-compatible server, with retries and optional streaming."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        supports_json_schema: bool = False,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Point the backend at a server.

        Args:
            model: The name the server knows the model by.
            base_url: The API root, e.g. ``http://127.0.0.1:11434/v1`` (``/chat/completions`` is added).
            api_key: Sent as a bearer token when given; local servers usually need none.
            timeout: Seconds one attempt may take.
            supports_json_schema: Send ``response_format={"type": "json_schema", ...}`` when asked for a
                schema. Off by default: many servers reject or ignore it.
            retry: The backoff rule; ``RetryPolicy()`` when not given.
            transport: An httpx transport to send through (tests and benchmarks use this).
        """
        self._model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._json_schema = supports_json_schema
        self._retry = retry or RetryPolicy()
        self._transport = transport

    @property
    def name(self) -> str:
        """The model's name on the server."""
        return self._model

    @property
    def supports_json_schema(self) -> bool:
        """Whether ``complete`` passes a JSON schema on to the server."""
        return self._json_schema

    async def complete(
        self,
        messages: list[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        on_text: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> Completion:
        """Ask the server for the next assistant message; stream it to ``on_text`` when given."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            body["seed"] = seed
        if json_schema is not None and self._json_schema:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": json_schema},
            }
        if on_text is not None:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return await self._request(body, on_text)

    async def _request(self, body: dict[str, Any], on_text: Callable[[str], None] | None) -> Completion:
        """POST with retries; raise ``ModelError`` saying what failed and what to check."""
        import httpx

        payload = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **self._headers}
        # One client per reply: a pooled client would outlive the event loop of ``asyncio.run``
        # and leak its sockets; on the loopback servers this backend is for, a new connection is cheap.
        async with httpx.AsyncClient(timeout=self._timeout, transport=self._transport, verify=tls_context()) as client:
            return await self._send(client, payload, headers, on_text)

    async def _send(
        self, client: httpx.AsyncClient, payload: bytes, headers: dict[str, str], on_text: Callable[[str], None] | None
    ) -> Completion:
        """Send with retries; raise ``ModelError`` saying what failed and what to check."""
        import httpx

        for attempt in range(self._retry.tries):
            last = attempt + 1 >= self._retry.tries
            try:
                request = client.build_request("POST", self._url, content=payload, headers=headers)
                response = await client.send(request, stream=True)
            except (httpx.TimeoutException, httpx.NetworkError) as exc:
                if last:
                    raise ModelError(
                        f"Could not reach the model server at {self._url} after {self._retry.tries} tries "
                        f"({type(exc).__name__}: {exc}). Check that the server is running and --base-url is right."
                    ) from exc
            else:
                try:
                    if response.status_code < 400:
                        return await _read(response, on_text, self._url)
                    await response.aread()
                    if last or not self._retry.should_retry_status(response.status_code):
                        raise _status_error(self._url, self._model, response, attempt + 1)
                finally:
                    await response.aclose()
            await self._retry.wait(attempt)
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


async def _read(response: httpx.Response, on_text: Callable[[str], None] | None, url: str) -> Completion:
    """Read a successful reply: whole JSON, or server-sent events passed on to ``on_text`` as they come."""
    import httpx

    try:
        if on_text is None:
            await response.aread()
            return _parse_completion(response.json())
        return await _read_stream(response, on_text)
    except (httpx.TransportError, json.JSONDecodeError) as exc:
        raise ModelError(f"The model server at {url} broke off or sent bad JSON mid-reply: {exc}") from exc


def _status_error(url: str, model: str, response: httpx.Response, tries: int) -> ModelError:
    hint = {
        401: "check the API key",
        403: "check the API key and that it may use this model",
        404: f"check the model name {model!r} and the base URL",
        429: "the server is rate limiting; wait and try again",
    }.get(response.status_code, "the server failed; try again later" if response.status_code >= 500 else "")
    detail = response.text[:300].strip()
    return ModelError(
        f"The model server at {url} answered HTTP {response.status_code} (after {tries} "
        f"{'try' if tries == 1 else 'tries'}): {detail or 'no details'}." + (f" Hint: {hint}." if hint else "")
    )


def _parse_completion(data: Any) -> Completion:
    try:
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
        usage = data.get("usage") or {}
        return Completion(
            text=text,
            input_tokens=int(usage.get("prompt_tokens", 0)),
            output_tokens=int(usage.get("completion_tokens", 0)),
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ModelError(f"The model server sent a reply without choices[0].message: {str(data)[:300]}") from exc


async def _read_stream(response: httpx.Response, on_text: Callable[[str], None]) -> Completion:
    """Decode server-sent events, passing each text delta on as soon as it arrives."""
    pieces: list[str] = []
    usage: dict[str, Any] = {}
    finish = "stop"
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = (choice.get("delta") or {}).get("content")
            if delta:
                pieces.append(delta)
                on_text(delta)
            finish = choice.get("finish_reason") or finish
    return Completion(
        text="".join(pieces),
        input_tokens=int(usage.get("prompt_tokens", 0)),
        output_tokens=int(usage.get("completion_tokens", 0)),
        finish_reason=finish,
    )
