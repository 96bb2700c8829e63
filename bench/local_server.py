"""An OpenAI-compatible HTTP server over the embedded model, so peers use exactly our model.

Why: the benchmark compares our compile with DSPy's optimizers on the same model and the same
rollout budget. DSPy reaches models through litellm, i.e. over HTTP, so this serves the very
``LlamaCppBackend`` our compile uses (same weights, chat template, greedy decoding and grammar-
constrained JSON) on 127.0.0.1, and counts what it serves so a benchmark can read honest rollout
and token counts from ``GET /stats`` before and after a run.

    python bench/local_server.py --model qwen2.5-coder-0.5b --port 0
    # first stdout line: http://127.0.0.1:PORT   (then use PORT/v1 as the OpenAI base URL)

Endpoints:

- ``POST /v1/chat/completions``: non-streaming; honours ``max_tokens`` (or ``max_completion_tokens``,
  clamped to what fits in the context window), ``temperature`` (default 0: greedy), ``stop``
  (generation is cancelled at the first stop string), ``response_format`` ``json_schema`` (decoding follows
  the schema) or ``json_object`` (any JSON object); ``n`` must be 1; ``stream`` and ``tools`` are
  refused with a 400 that says so.
- ``GET /v1/models``: the one model served.
- ``GET /stats``: requests served, errors, prompt and completion tokens, and seconds spent generating.

One model answers one request at a time (llama.cpp is not thread-safe): the server is threaded so
that keep-alive connections from a client pool never block one another, and a lock serialises the
generations. Weights are read from the verified cache (``$CHRYSALIS_HOME/models``, default
``~/.chrysalis/models``); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Protocol, runtime_checkable

from chrysalis.config import chrysalis_home
from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatBackend, ChatMessage, Completion
from chrysalis.llm.local.llama_backend import ContextOverflowError, LlamaCppBackend

__all__ = ["ModelServer", "RequestError", "Stats", "main", "parse_request"]

DEFAULT_MAX_TOKENS = 1024
_ROLES: dict[str, Literal["system", "user", "assistant"]] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}


@runtime_checkable
class CountingBackend(Protocol):
    """A backend that can count a prompt's tokens, so ``max_tokens`` can be clamped to the window."""

    @property
    def n_ctx(self) -> int:
        """The context window in tokens."""
        ...

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        """Tokens the rendered ``messages`` take."""
        ...


class RequestError(Exception):
    """A request the server will not serve; the message goes back to the client as an OpenAI error."""

    def __init__(self, message: str, *, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass
class Stats:
    """What the server has served since it started (``GET /stats``)."""

    requests: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation_seconds: float = 0.0


@dataclass(frozen=True)
class ChatRequest:
    """The parts of an OpenAI chat request that the embedded model can honour."""

    messages: list[ChatMessage]
    max_tokens: int
    temperature: float
    json_schema: dict[str, Any] | None
    stop: tuple[str, ...]


def parse_request(body: dict[str, Any], default_max_tokens: int = DEFAULT_MAX_TOKENS) -> ChatRequest:
    """Validate an OpenAI chat-completions body; anything this server cannot honour is a ``RequestError``."""
    if body.get("stream"):
        raise RequestError("streaming is not supported by this server; send stream=false")
    if body.get("n", 1) != 1:
        raise RequestError(f"n={body['n']!r} is not supported: one model, one completion per request (n=1)")
    if body.get("tools") or body.get("functions"):
        raise RequestError("native tool calls are not supported; describe tools in the prompt or use response_format")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestError("'messages' must be a non-empty list of {role, content} objects")
    messages = [_message(m) for m in raw]
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or default_max_tokens
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise RequestError(f"max_tokens must be a positive integer, not {max_tokens!r}")
    temperature = body.get("temperature")
    temperature = 0.0 if temperature is None else temperature
    if not isinstance(temperature, int | float) or not 0 <= temperature <= 2:
        raise RequestError(f"temperature must be a number from 0 to 2, not {temperature!r}")
    stop = body.get("stop") or ()
    stops = (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop)
    return ChatRequest(messages, max_tokens, float(temperature), _json_schema(body.get("response_format")), stops)


def _message(raw: Any) -> ChatMessage:
    """One chat message; content given as a list of text parts is joined."""
    if not isinstance(raw, dict) or raw.get("role") not in _ROLES:
        role = raw.get("role") if isinstance(raw, dict) else raw
        raise RequestError(f"unsupported message role {role!r}; use one of: {', '.join(_ROLES)}")
    content = raw.get("content") or ""
    if isinstance(content, list):
        if any(not isinstance(p, dict) or p.get("type") != "text" for p in content):
            raise RequestError("only text content parts are supported")
        content = "".join(str(p.get("text", "")) for p in content)
    if not isinstance(content, str):
        raise RequestError(f"message content must be a string or a list of text parts, not {type(content).__name__}")
    return ChatMessage(role=_ROLES[raw["role"]], content=content)


def _json_schema(response_format: Any) -> dict[str, Any] | None:
    """The schema decoding must follow, from ``response_format``; None for plain text."""
    if response_format is None:
        return None
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "object"}
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema
    raise RequestError(
        "response_format must be {type: text}, {type: json_object} or {type: json_schema, json_schema: {schema}}"
    )


class ModelServer(ThreadingHTTPServer):
    """Serves one ``ChatBackend`` over the OpenAI chat API; ``stats`` counts what it served."""

    daemon_threads = True

    def __init__(self, backend: ChatBackend, port: int = 0, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.backend = backend
        self.default_max_tokens = default_max_tokens
        self.stats = Stats()
        self._lock = threading.Lock()
        """Held for a whole generation: one model, one request at a time."""
        self._stats_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self._loop.run_forever, name="model-loop", daemon=True)
        self._loop_thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``; the OpenAI base URL is this plus ``/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def server_close(self) -> None:
        """Close the socket and stop the event loop the backend runs on."""
        super().server_close()
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop_thread.join(5)
            self._loop.close()

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer one chat request (one at a time) and count it."""
        request = parse_request(body, self.default_max_tokens)
        with self._lock:
            max_tokens, prompt_tokens = self._fit(request)
            started = time.perf_counter()
            future = asyncio.run_coroutine_threadsafe(self._generate(request, max_tokens, prompt_tokens), self._loop)
            completion = future.result()
            with self._stats_lock:
                self.stats.generation_seconds += time.perf_counter() - started
                self.stats.requests += 1
                self.stats.prompt_tokens += completion.input_tokens
                self.stats.completion_tokens += completion.output_tokens
                number = self.stats.requests
        return _response(self.backend.name, number, completion, request.stop)

    def snapshot(self) -> dict[str, Any]:
        """The counters as a JSON object, read consistently."""
        with self._stats_lock:
            return asdict(self.stats)

    def count_error(self) -> None:
        """Count a request answered with an error."""
        with self._stats_lock:
            self.stats.errors += 1

    async def _generate(self, request: ChatRequest, max_tokens: int, prompt_tokens: int | None) -> Completion:
        """Run the backend; with stop strings, stream and cancel generation at the first one.

        Why not just cut the text afterwards: small models often keep writing after their answer
        (DSPy's ``[[ ## completed ## ]]`` marker, then the pattern again) until ``max_tokens``, and
        those tokens cost seconds. A stopped completion reports the streamed pieces as its output
        tokens (llama.cpp streams about one token per piece).
        """
        pieces: list[str] = []
        stopped = asyncio.Event()

        def on_text(piece: str) -> None:
            pieces.append(piece)
            tail = "".join(pieces[-64:])  # a stop string spans at most a few pieces
            if any(stop in tail for stop in request.stop):
                stopped.set()

        task = asyncio.ensure_future(
            self.backend.complete(
                request.messages,
                json_schema=request.json_schema,
                max_tokens=max_tokens,
                temperature=request.temperature,
                on_text=on_text if request.stop else None,
            )
        )
        waiter = asyncio.ensure_future(stopped.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        text = "".join(pieces)
        prompt = prompt_tokens if prompt_tokens is not None else sum(len(m.content) for m in request.messages) // 4
        return Completion(text=text, input_tokens=prompt, output_tokens=len(pieces), finish_reason="stop")

    def _fit(self, request: ChatRequest) -> tuple[int, int | None]:
        """``max_tokens`` cut to what fits after the prompt (as llama.cpp's server does), and the prompt's size."""
        if not isinstance(self.backend, CountingBackend):
            return request.max_tokens, None
        prompt = self.backend.count_tokens(request.messages)
        room = self.backend.n_ctx - prompt
        if room < 1:
            raise RequestError(
                f"the prompt is {prompt} tokens, which does not fit in the {self.backend.n_ctx}-token context",
                code="context_length_exceeded",
            )
        return min(request.max_tokens, room), prompt


def _response(model: str, number: int, completion: Completion, stop: tuple[str, ...]) -> dict[str, Any]:
    """The OpenAI chat-completion object for ``completion``, cut at the first stop string."""
    text, finish = completion.text, completion.finish_reason
    cuts = [text.find(s) for s in stop if s and s in text]
    if cuts:
        text, finish = text[: min(cuts)], "stop"
    return {
        "id": f"chatcmpl-local-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "length" if finish == "length" else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": completion.input_tokens,
            "completion_tokens": completion.output_tokens,
            "total_tokens": completion.input_tokens + completion.output_tokens,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    """Routes the three endpoints; every answer is JSON with a Content-Length (keep-alive safe)."""

    server: ModelServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/models":
            model = {"id": self.server.backend.name, "object": "model", "created": 0, "owned_by": "chrysalis"}
            self._send(HTTPStatus.OK, {"object": "list", "data": [model]})
        elif path == "/stats":
            self._send(HTTPStatus.OK, self.server.snapshot())
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no route GET {path}; try /v1/models or /stats")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if path != "/v1/chat/completions":
            self._error(HTTPStatus.NOT_FOUND, f"no route POST {path}; this server has /v1/chat/completions")
            return
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise RequestError("the request body must be a JSON object")
            self._send(HTTPStatus.OK, self.server.chat(body))
        except json.JSONDecodeError as exc:
            self._error(HTTPStatus.BAD_REQUEST, f"the request body is not JSON: {exc}")
        except RequestError as exc:
            self._error(exc.status, str(exc), exc.code)
        except ContextOverflowError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc), "context_length_exceeded")
        except ValueError as exc:  # e.g. a JSON schema llama.cpp cannot turn into a grammar
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except ModelError as exc:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))
        except Exception as exc:  # a bug here must still answer, or the client waits for its timeout
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}: {exc}")

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        self.server.count_error()
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._send(status, {"error": {"message": message, "type": kind, "code": code}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a benchmark makes thousands of requests; errors still reach the client."""


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops the server like Ctrl-C, so the model is unloaded cleanly at exit."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Load the model, print the URL as the first stdout line, serve until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description="OpenAI-compatible server over the embedded model (127.0.0.1).")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="catalog name (default: %(default)s)")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens (default: %(default)s)")
    parser.add_argument("--default-max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    backend = LlamaCppBackend.load(args.model.removeprefix("local:"), chrysalis_home(), n_ctx=args.n_ctx)
    server = ModelServer(backend, args.port, default_max_tokens=args.default_max_tokens)
    print(server.url, flush=True)
    print(
        f"serving local:{backend.name} (n_ctx {args.n_ctx}, loaded in {time.perf_counter() - started:.1f} s)",
        file=sys.stderr,
    )
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
