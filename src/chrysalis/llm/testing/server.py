"""``ScriptedOpenAIServer``: a bounded OpenAI-compatible server on 127.0.0.1 that answers from a script.

It answers ``/v1/chat/completions`` in the OpenAI wire format (text or tool calls, streamed or not,
with usage) from a script of ``ScriptedReply``s. It is bounded: it stops itself after a number of
requests or seconds, so a broken test cannot hang. Point any OpenAI-compatible client at
``server.base_url``.

Tests synchronise on the server's events, never on a clock: ``wait_for_requests(n)`` blocks until
the n-th request has arrived, a ``ScriptedReply(held=True)`` keeps its request in flight until the
test calls ``release()`` (so "the client is waiting for the model" is a fact, not a guess about
timing), and ``stopped`` is set once the server has stopped.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

__all__ = ["ScriptedOpenAIServer", "ScriptedReply"]


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer of ``ScriptedOpenAIServer``: text, tool calls, or an HTTP error."""

    text: str | None = None
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    status: int = 200
    input_tokens: int = 10
    output_tokens: int = 5
    headers: dict[str, str] = field(default_factory=dict[str, str])
    held: bool = False
    """Send this reply only after ``ScriptedOpenAIServer.release()``; until then the request stays in flight.

    Bounded like the rest of the server: if it stops first (``stop()``, ``with`` exit, or ``max_seconds``),
    the held request gets a 503 saying it was never released.
    """
    thinking_s: float = 0.0
    """Seconds the server waits before sending this reply, as a real model takes time to answer.

    For benchmarks that need runs in flight; tests synchronise on ``held`` and ``wait_for_requests`` instead.
    """

    @classmethod
    def tool_call(cls, name: str, args: dict[str, Any] | None = None) -> ScriptedReply:
        """A reply that calls one tool."""
        return cls(tool_calls=((name, args or {}),))

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> ScriptedReply:
        """An HTTP error reply with an OpenAI-style error body."""
        return cls(text=message, status=status)


Script = Sequence["ScriptedReply | str"] | Callable[[dict[str, Any]], "ScriptedReply | str"]


class ScriptedOpenAIServer:
    """A bounded OpenAI-compatible server on 127.0.0.1 that answers from a script; use it with ``with``."""

    def __init__(
        self,
        script: Script,
        *,
        max_requests: int | None = None,
        max_seconds: float = 120.0,
        models: Sequence[str] = ("scripted",),
        replay_redraws: bool = True,
        n: Literal["ignore", "choices", "refuse"] = "ignore",
    ) -> None:
        """Prepare the server (it starts on ``start()`` or ``with``).

        Args:
            script: Replies in order (a ``str`` is a text reply), or a function from the request's
                JSON body to the reply.
            max_requests: Stop after this many requests; by default the script's length (or 1000
                for a function).
            max_seconds: Stop after this many seconds whatever happens. A guard against hangs, not a
                deadline for the test: keep it far above what the slowest machine needs.
            models: The ids ``GET /models`` lists (model discovery); it does not count as a request.
            replay_redraws: Answer a voter's redraw (the previous request's messages again, with a
                ``seed`` of 1 or more, as ``VotingModel`` sends for a critical step) with the previous
                reply, as a deterministic model would, without using up the script or the budget.
                ``False`` for tests of sampling itself, whose voters are scripted one by one.
            n: A request for ``n`` > 1 choices gets one (``ignore``), ``n`` (``choices``: a function
                script is called per choice, with the body's ``choice``), or HTTP 400 (``refuse``).
        """
        self.script = script
        self.models = tuple(models)
        self.requests: list[dict[str, Any]] = []
        """The JSON body of every request received, in order."""
        self.request_times: list[float] = []
        """``time.perf_counter()`` when each request arrived (for start-up benchmarks)."""
        self.max_requests = max_requests or (len(script) if isinstance(script, Sequence) else 1000)
        self.replay_redraws, self.n = replay_redraws, n
        self.redraws = 0
        """Voters' redraws answered with the previous reply (not in ``requests``, which the script answered)."""
        self._last: ScriptedReply | None = None
        self.max_seconds = max_seconds
        self.stopped = threading.Event()
        """Set once the server has stopped serving (by ``stop()``, the request budget, or ``max_seconds``)."""
        self._changed = threading.Condition()
        """Guards ``requests`` and the flags below; notified when a request arrives, on release and on stop."""
        self._released = False
        self._stopping = False
        self._stop_lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def base_url(self) -> str:
        """The API root to give a client, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> ScriptedOpenAIServer:
        """Serve in a background thread until stopped, the request budget is spent, or time runs out."""
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.max_seconds, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port; held replies get a 503. Safe to call more than once, from any thread."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        with self._stop_lock:
            if self._timer is not None:
                self._timer.cancel()
            if self._thread is not None:
                self._server.shutdown()
                self._thread = None
            self._server.server_close()
        self.stopped.set()

    def wait_for_requests(self, count: int = 1, timeout: float | None = None) -> bool:
        """Block until ``count`` requests have arrived; False if the server stopped (or ``timeout`` passed) first.

        Without ``timeout`` the wait is still bounded once the server has started: it stops itself after
        ``max_seconds``.
        """
        with self._changed:
            self._changed.wait_for(lambda: len(self.requests) >= count or self._stopping, timeout)
            return len(self.requests) >= count

    def release(self) -> None:
        """Send the held replies now; replies marked ``held`` that arrive later go out at once."""
        with self._changed:
            self._released = True
            self._changed.notify_all()

    def _wait_for_release(self) -> bool:
        """Block a held reply until ``release()`` (True) or until the server stops (False)."""
        with self._changed:
            self._changed.wait_for(lambda: self._released or self._stopping)
            return self._released

    def _deliverable(self, reply: ScriptedReply | None) -> ScriptedReply:
        """``reply`` once it may go out: released if held, after its thinking time; a 503 if there is none."""
        if reply is None:
            return ScriptedReply.error(503, "the scripted server has no more replies")
        if reply.held and not self._wait_for_release():
            return ScriptedReply.error(503, "the scripted server stopped before the test released this reply")
        if reply.thinking_s > 0:
            time.sleep(reply.thinking_s)  # outside the server's lock: other requests are answered meanwhile
        return reply

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def next_reply(self, body: dict[str, Any]) -> ScriptedReply | None:
        """Record the request and pick its reply; ``None`` once the budget or script is spent."""
        with self._changed:
            if self._is_redraw(body):
                self.redraws += 1
                return self._last
            self.request_times.append(time.perf_counter())
            self.requests.append(body)
            self._changed.notify_all()
            index = len(self.requests) - 1
            if index >= self.max_requests:
                threading.Thread(target=self.stop, daemon=True).start()
                return None
            if isinstance(self.script, Sequence):
                if index >= len(self.script):
                    return None
                reply = self.script[index]
            else:
                reply = self.script(body)
            self._last = ScriptedReply(text=reply) if isinstance(reply, str) else reply
        return self._last

    def another_choice(self, body: dict[str, Any], choice: int, first: ScriptedReply) -> ScriptedReply:
        """Choice ``choice`` (1 or more) of a request for several: the script's, or the first again."""
        if not callable(self.script):
            return first
        reply = self.script({**body, "choice": choice})
        return ScriptedReply(text=reply) if isinstance(reply, str) else reply

    def _is_redraw(self, body: dict[str, Any]) -> bool:
        """A voter's redraw of the previous request (caller holds the lock)."""
        if not self.replay_redraws or not self.requests or self._last is None or not body.get("seed"):
            return False
        return bool(body.get("messages") == self.requests[-1].get("messages"))


class _QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-request (a killed worker, an interrupted run) is no error worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _completion_body(replies: list[ScriptedReply], model: str) -> dict[str, Any]:
    choices = []
    for index, reply in enumerate(replies):
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(reply.tool_calls)
            ]
        finish = "tool_calls" if reply.tool_calls else "stop"
        choices.append({"index": index, "message": message, "finish_reason": finish})
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "usage": _usage(replies[0]),
    }


def _usage(reply: ScriptedReply) -> dict[str, int]:
    total = reply.input_tokens + reply.output_tokens
    return {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens, "total_tokens": total}


def _stream_body(reply: ScriptedReply, model: str) -> bytes:
    """The same reply as server-sent events: text in a few deltas, tool calls whole, then usage."""
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    text = reply.text or ""
    step = max(1, len(text) // 3)
    deltas += [{"content": text[i : i + step]} for i in range(0, len(text), step)]
    for i, (name, args) in enumerate(reply.tool_calls):
        call = {"index": i, "id": f"call_{i}", "type": "function"}
        deltas.append({"tool_calls": [{**call, "function": {"name": name, "arguments": json.dumps(args)}}]})
    chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    finish = "tool_calls" if reply.tool_calls else "stop"
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    chunks.append({**base, "choices": [], "usage": _usage(reply)})
    events = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    return "".join(events).encode()


def _listing(server: ScriptedOpenAIServer, path: str) -> tuple[int, bytes]:
    """``GET /v1/models``: the server's model ids, as OpenAI lists them; anything else is a 404."""
    if path.rstrip("/") != "/v1/models":
        return 404, b'{"error": {"message": "not found"}}'
    return 200, json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in server.models]}).encode()


def _answer(server: ScriptedOpenAIServer, body: dict[str, Any]) -> tuple[int, bytes, str, dict[str, str]]:
    """The status, payload, content type and headers of the reply to one chat request."""
    wanted = int(body.get("n") or 1)
    if wanted > 1 and server.n == "refuse":
        server.next_reply(body)  # counted as a request, as a real server would have received it
        reply = ScriptedReply.error(400, "n > 1 is not supported")
    else:
        reply = server._deliverable(server.next_reply(body))
    model = str(body.get("model", "scripted"))
    if reply.status >= 400:
        error = {"error": {"message": reply.text, "type": "server_error", "code": None}}
        return reply.status, json.dumps(error).encode(), "application/json", reply.headers
    if body.get("stream"):
        return 200, _stream_body(reply, model), "text/event-stream", reply.headers
    replies = [reply]
    if wanted > 1 and server.n == "choices":
        replies += [server.another_choice(body, k, reply) for k in range(1, wanted)]
    return 200, json.dumps(_completion_body(replies, model)).encode(), "application/json", reply.headers


def _handler_for(server: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
        # One buffered write per reply and no Nagle: otherwise headers and body go out as two small
        # packets and delayed ACKs add ~40 ms to every keep-alive request.
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            status, payload = _listing(server, self.path)
            self._send(status, payload, "application/json", {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:  # cut short (a client killed mid-request): no request, not counted
                self._send(400, b'{"error": {"message": "the body is not JSON"}}', "application/json", {})
                return
            self._send(*_answer(server, body))

        def _send(self, status: int, payload: bytes, content_type: str, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client went away (an interrupted run): fine
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler
