"""The HTTP service under bounded load: requests per second and p99 latency of POST /v1/runs + GET /v1/runs/ID.

The service runs in its own process against a scripted model on 127.0.0.1 that answers at once, in
two set-ups: ``with_worker`` is ``chrysalis serve --http --port 0`` as a user starts it, whose worker
executes the queued runs while the load goes on (the requests share the process with those runs);
``queue_only`` is the same service without its worker (``--concurrency 0``), so what
is measured is the endpoints alone: validation, the durable queue's write, the run store's read.
``--clients`` concurrent clients (one keep-alive connection each) send ``--requests`` iterations
in all; each iteration of the measured phase is ``POST /v1/runs`` then ``GET /v1/runs/ID``; each of
the baseline phase is two ``GET /v1/health`` (a route that touches nothing), on the same server in
the same round. The ratio of the two says what the run endpoints
cost over the bare HTTP stack. Rounds alternate the phases, so a noisy moment hits both alike.

On a busy machine the wall-clock numbers mostly say how much CPU the service got; the server's own
CPU time per request (``server_cpu_ms_per_request``, from /proc: user + system time of the service's
process over the phase) says what each request cost it, however long it waited for a core.

    python bench/http_service.py [--requests 200] [--clients 4] [--rounds 3]

(Asked for as bench/http.py; a file of that name in bench/ hides the standard library's ``http``, which
httpx and uvicorn import, from every script run from this folder, so it is named for what it measures.)

Writes bench/results/http.json. Run it niced on a busy machine and read the numbers as such.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "http.json"
CHRYSALIS = [sys.executable, "-m", "chrysalis"]
_SERVING = re.compile(r"serving on (http://\S+?) ")
_GUARD_S = 300.0

Iteration = Callable[["Connection"], Awaitable[list[float]]]
"""One iteration of a phase: its requests' latencies in seconds."""


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values``."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil
    return ordered[int(rank) - 1]


@contextmanager
def serve(home: Path, workspace: Path, base_url: str, *, worker: bool) -> Iterator[tuple[str, int]]:
    """The service against the scripted model (``chrysalis serve --http --port 0``, with ``--concurrency 0``
    without its worker); yields its URL and process id; Ctrl-C at the end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRYSALIS_")}
    env["CHRYSALIS_HOME"] = str(home)
    flags = ["--model", "openai:x", "--base-url", base_url, "--workspace", str(workspace)]
    command = [*CHRYSALIS, "serve", "--http", "--port", "0", "--concurrency", "2" if worker else "0", *flags]
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:  # the line that says it is ready
            found = _SERVING.search(line)
            if found:
                break
        else:
            raise RuntimeError(f"chrysalis serve --http exited {process.wait()} before serving")
        yield found.group(1), process.pid
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


class Connection:
    """One keep-alive HTTP/1.1 connection, as lean as a client gets (httpx costs the client more CPU per
    request than the service spends, so on 2 cores it, not the service, would set the rate)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, url: str) -> Connection:
        """A connection to ``http://HOST:PORT``."""
        host, port = url.removeprefix("http://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        return cls(reader, writer, f"{host}:{port}")

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """Send one request and read its answer (which must have a Content-Length); (status, JSON body)."""
        payload = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(payload)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        status_line = await self.reader.readuntil(b"\r\n")
        length = 0
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        answer = await self.reader.readexactly(length)
        return int(status_line.split()[1]), json.loads(answer) if answer else None

    async def close(self) -> None:
        """Close the connection."""
        self.writer.close()
        await self.writer.wait_closed()


async def run_then_get(client: Connection) -> list[float]:
    """POST /v1/runs, then GET /v1/runs/ID: the two latencies."""
    started = time.perf_counter()
    status, created = await client.request("POST", "/v1/runs", {"task": "say ok", "mode": "ask"})
    posted = time.perf_counter()
    if status != 202:
        raise RuntimeError(f"POST /v1/runs answered {status}: {created}")
    status, got = await client.request("GET", f"/v1/runs/{created['id']}")
    if status != 200:
        raise RuntimeError(f"GET /v1/runs/ID answered {status}: {got}")
    return [posted - started, time.perf_counter() - posted]


async def health_twice(client: Connection) -> list[float]:
    """The baseline: two GET /v1/health."""
    latencies = []
    for _ in range(2):
        started = time.perf_counter()
        status, _answer = await client.request("GET", "/v1/health")
        if status != 200:
            raise RuntimeError(f"GET /v1/health answered {status}")
        latencies.append(time.perf_counter() - started)
    return latencies


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def phase(url: str, pid: int, iteration: Iteration, requests: int, clients: int) -> dict[str, Any]:
    """``requests`` iterations shared by ``clients`` concurrent clients; throughput, latency, the server's CPU."""
    remaining = iter(range(requests))
    firsts: list[float] = []
    seconds: list[float] = []

    async def client_loop() -> None:
        client = await Connection.open(url)
        try:
            for _ in remaining:  # shared iterator: each iteration is taken by exactly one client
                first, second = await asyncio.wait_for(iteration(client), _GUARD_S)
                firsts.append(first)
                seconds.append(second)
        finally:
            await client.close()

    cpu = cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(*(client_loop() for _ in range(clients)))
    wall = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu
    pairs = [a + b for a, b in zip(firsts, seconds, strict=True)]
    every = firsts + seconds
    return {
        "iterations": requests,
        "requests": len(every),
        "seconds": wall,
        "requests_per_second": len(every) / wall,
        "iterations_per_second": requests / wall,
        "server_cpu_ms_per_request": cpu * 1000 / len(every),
        "p50_ms": percentile(every, 50) * 1000,
        "p99_ms": percentile(every, 99) * 1000,
        "first_p50_ms": percentile(firsts, 50) * 1000,
        "first_p99_ms": percentile(firsts, 99) * 1000,
        "second_p50_ms": percentile(seconds, 50) * 1000,
        "second_p99_ms": percentile(seconds, 99) * 1000,
        "pair_p99_ms": percentile(pairs, 99) * 1000,
    }


def drained(home: Path) -> tuple[int, float]:
    """Wait until no run in ``home``'s queue is queued or running; (runs, seconds waited)."""
    from chrysalis.runtime.database import open_engine
    from chrysalis.runtime.runs import RunStore

    started = time.perf_counter()
    with RunStore(open_engine(f"sqlite:///{home / 'runtime.sqlite'}")) as store:
        while time.perf_counter() - started < _GUARD_S:
            runs = store.all(limit=100_000)
            if all(run.finished for run in runs):
                return len(runs), time.perf_counter() - started
            time.sleep(0.2)
    raise RuntimeError("the queued runs did not finish")


def measure(requests: int, clients: int, rounds: int) -> dict[str, Any]:
    """Both set-ups, each alternating the baseline and the measured phase ``rounds`` times."""
    return {
        "what": "POST /v1/runs + GET /v1/runs/ID against the HTTP service (scripted model on 127.0.0.1); "
        "baseline: 2 x GET /v1/health on the same server in the same rounds; medians over the rounds",
        "requests": requests,
        "clients": clients,
        "rounds": rounds,
        "queue_only": measure_one(requests, clients, rounds, worker=False),
        "with_worker": measure_one(requests, clients, rounds, worker=True),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "nice": os.nice(0),
            "load_average": os.getloadavg(),
        },
    }


def measure_one(requests: int, clients: int, rounds: int, *, worker: bool) -> dict[str, Any]:
    """One set-up: the medians of each phase, their ratios, and (with the worker) how long the queue took to drain."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-http-") as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        answer = ScriptedReply(text="ok")
        with ScriptedOpenAIServer(lambda _body: answer, max_requests=10**6, max_seconds=3600) as model:
            with serve(root / "home", root / "ws", model.base_url, worker=worker) as (url, pid):
                asyncio.run(phase(url, pid, health_twice, 10, 1))  # warm up: imports, first connections
                asyncio.run(phase(url, pid, run_then_get, 5, 1))
                baseline, runs = [], []
                for _ in range(rounds):
                    baseline.append(asyncio.run(phase(url, pid, health_twice, requests, clients)))
                    runs.append(asyncio.run(phase(url, pid, run_then_get, requests, clients)))
                executed, drain_s = drained(root / "home") if worker else (0, 0.0)
            model_requests = len(model.requests)
    return summarise(baseline, runs, executed=executed, drain_s=drain_s, model_requests=model_requests)


def summarise(baseline: list[dict[str, Any]], runs: list[dict[str, Any]], **facts: Any) -> dict[str, Any]:
    """The rounds' medians per phase, and how the run endpoints compare with the baseline."""

    def median(rows: list[dict[str, Any]]) -> dict[str, float]:
        return {key: statistics.median(row[key] for row in rows) for key in rows[0] if key != "iterations"}

    base, measured = median(baseline), median(runs)
    return {
        **facts,
        "runs": measured,
        "baseline": base,
        "rps_ratio": base["requests_per_second"] / measured["requests_per_second"],
        "p99_ratio": measured["p99_ms"] / base["p99_ms"],
        "cpu_ratio": (
            measured["server_cpu_ms_per_request"] / base["server_cpu_ms_per_request"]
            if base["server_cpu_ms_per_request"]
            else None
        ),  # a clock tick is 10 ms: tiny runs may see 0
        "rounds_detail": {"runs": runs, "baseline": baseline},
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the headline numbers and write the result file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=200, help="iterations per phase and round")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    result = {"provenance": provenance(), **measure(args.requests, args.clients, args.rounds)}
    for name in ("queue_only", "with_worker"):
        one = result[name]
        runs, base = one["runs"], one["baseline"]
        print(
            f"{name}: POST+GET /v1/runs {runs['requests_per_second']:.0f} req/s, p50 {runs['p50_ms']:.1f} ms, "
            f"p99 {runs['p99_ms']:.1f} ms (POST {runs['first_p99_ms']:.1f}, GET {runs['second_p99_ms']:.1f}); "
            f"baseline /v1/health {base['requests_per_second']:.0f} req/s, p99 {base['p99_ms']:.1f} ms; "
            f"ratio {one['rps_ratio']:.2f}x fewer req/s, p99 {one['p99_ratio']:.2f}x; server CPU per request "
            f"{runs['server_cpu_ms_per_request']:.2f} ms vs {base['server_cpu_ms_per_request']:.2f} ms "
            f"({one['cpu_ratio'] or float('nan'):.2f}x)"
        )
    worked = result["with_worker"]
    print(f"with_worker: {worked['executed']} runs executed, queue drained {worked['drain_s']:.1f} s after the load")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
