"""How soon a run waiting for approval goes on after ``chrysalis approve``: p50/p99 on SQLite and PostgreSQL.

One ``chrysalis worker`` keeps running; N runs are queued one after another, each asking to run a
shell command at level 3 (no ``--yes``), so each waits in ``DBOS.recv`` for a signed decision. Once
the run waits, the decision is given, alternately:

- **wake**: signed and stored in this process, then the clock starts and ``queue.wake`` sends the
  DBOS message through the store's engine, as ``chrysalis approve`` does at its end: the wake-up itself;
- **cli**: the clock starts, then ``chrysalis approve ID`` runs as a person runs it (its Python
  start-up, imports and key loading count).

Also recorded: ``wake_send``, the part of ``wake`` spent opening a DBOS client and sending (the rest
is the run waking, checking the envelope, running the command in its sandbox, asking the model),
``cli_command``, how long ``chrysalis approve`` itself took (the run is often on its way before it exits),
and ``cli_command_cpu``, the CPU time (user + system) it used: wall times grow with the machine's load,
which ``load_average`` gives at the start and the end (other work may share the machine).

The clock stops when the scripted model server (127.0.0.1) receives the run's next request, the
one carrying the approved command's output: the run woke, checked the envelope, ran the command
and asked the model again. PostgreSQL is measured on a fresh database of its own (created, then
dropped) on the server of ``--postgres URL`` or ``TEST_POSTGRES_URL``; without either, "not measured".

    python bench/approval_latency.py [--approvals 10] [--postgres URL]

Writes bench/results/approval_latency.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "approval_latency.json"
CHRYSALIS = [sys.executable, "-m", "chrysalis"]
GUARD_S = 120.0


def _model(arrivals: list[float]) -> Callable[[dict[str, Any]], ScriptedReply]:
    """Asks for one shell command; the request that carries its output is timed on arrival, and answered."""

    def reply(body: dict[str, Any]) -> ScriptedReply:
        if any(m.get("role") == "tool" for m in body["messages"]):
            arrivals.append(time.perf_counter())
            return ScriptedReply(text="Finished.")
        return ScriptedReply.tool_call("shell", {"command": "echo approved >> log.txt"})

    return reply


def _until(ready: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + GUARD_S
    while not (value := ready()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} after {GUARD_S:.0f} s")
        time.sleep(0.01)
    return value


def _percentiles(samples: list[float]) -> dict[str, Any]:
    ranked = sorted(samples)

    def rank(q: float) -> float:  # nearest rank
        return ranked[max(0, math.ceil(q * len(ranked)) - 1)]

    return {"n": len(ranked), "p50_ms": round(rank(0.5) * 1000, 1), "p99_ms": round(rank(0.99) * 1000, 1)}


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have ended."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _approve(way: str, url: str, home: Path, request_id: str, env: dict[str, str]) -> tuple[float, float, float]:
    """Give the decision ``way`` (wake or cli); returns when the clock started, when the message was sent (cli:
    when the command ended), and the CPU seconds the command used (wake: 0)."""
    from chrysalis.runtime.approvals import ApprovalStore
    from chrysalis.runtime.database import open_engine
    from chrysalis.runtime.envelopes import sign
    from chrysalis.runtime.keys import load_private
    from chrysalis.runtime.queue import approval_topic, wake

    if way == "cli":
        cpu, started = _children_cpu(), time.perf_counter()
        subprocess.run([*CHRYSALIS, "approve", request_id], env=env, check=True, capture_output=True, timeout=GUARD_S)
        return started, time.perf_counter(), _children_cpu() - cpu
    with ApprovalStore(open_engine(url)) as store:
        request = store.get(request_id)
        store.decide(
            sign(load_private(home), request_id=request.id, tool=request.tool, args=request.args, decision="allow")
        )
        started = time.perf_counter()
        wake(url, request.run_id, approval_topic(request.id), store.engine)  # as `approve` does, on its connection
        return started, time.perf_counter(), 0.0


def measure(url: str | None, approvals: int, root: Path) -> dict[str, Any]:
    """Latencies (approve → the run's next model request) of ``approvals`` decisions each way on one database."""
    from chrysalis.config import load_settings
    from chrysalis.runtime.approvals import ApprovalStore
    from chrysalis.runtime.database import database_url, open_engine
    from chrysalis.runtime.keys import init_keys
    from chrysalis.runtime.queue import submit
    from chrysalis.runtime.runs import RunStore

    home, workspace = root / f"home-{uuid.uuid4().hex[:6]}", root / f"ws-{uuid.uuid4().hex[:6]}"
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRYSALIS_")} | {"CHRYSALIS_HOME": str(home)}
    env |= {"CHRYSALIS_DATABASE_URL": url} if url else {}
    init_keys(home)
    url = database_url(load_settings({}, env))
    arrivals: list[float] = []
    ways = ("wake", "cli", "wake_send", "cli_command", "cli_command_cpu")
    latencies: dict[str, list[float]] = {way: [] for way in ways}
    with ScriptedOpenAIServer(_model(arrivals), max_requests=4 * approvals + 5) as server:
        options = {
            "base_url": server.base_url,
            "model": "scripted",
            "mode": "code",
            "level": 3,
            "workspace": str(workspace),
        }
        engine = open_engine(url)
        runs, store = RunStore(engine), ApprovalStore(engine)
        worker = subprocess.Popen([*CHRYSALIS, "worker"], env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def one(i: int, way: str) -> None:
            run_id = submit(url, runs, f"approval {i}", options, "normal").id
            _until(lambda: runs.get(run_id).status == "waiting_approval", "wait for approval")
            [request] = _until(store.pending, "approval request")
            time.sleep(0.3)  # the run is past its look at the store and waits for the message
            started, sent, cpu = _approve(way, url, home, request.id, env)
            _until(lambda: len(arrivals) > i, "next model request")
            latencies[way].append(arrivals[i] - started)
            latencies[f"{way}_{'send' if way == 'wake' else 'command'}"].append(sent - started)
            if way == "cli":
                latencies["cli_command_cpu"].append(cpu)
            _until(lambda: runs.get(run_id).finished, "end of the run")

        try:
            for i in range(2 * approvals):
                one(i, "wake" if i % 2 == 0 else "cli")
        finally:
            worker.terminate()
            worker.wait(GUARD_S)
            engine.dispose()
    return {way: _percentiles(samples) for way, samples in latencies.items()}


@contextmanager
def fresh_postgres(server_url: str) -> Iterator[str]:
    """A new database of this bench's own on the server of ``server_url``, dropped afterwards."""
    from sqlalchemy import create_engine, text

    name = f"chrysalis_w_{uuid.uuid4().hex[:10]}"
    admin = create_engine(server_url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield server_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approvals", type=int, default=10, help="decisions each way (wake, cli) per engine")
    parser.add_argument("--postgres", default=os.environ.get("TEST_POSTGRES_URL"), help="a PostgreSQL server URL")
    args = parser.parse_args()
    result: dict[str, Any] = {"provenance": provenance(), "approvals_each_way": args.approvals}
    result["load_average"] = {"cpus": os.cpu_count(), "start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as scratch:
        result["sqlite"] = measure(None, args.approvals, Path(scratch))
        if args.postgres:
            with fresh_postgres(args.postgres) as url:
                result["postgresql"] = measure(url, args.approvals, Path(scratch))
        else:
            result["postgresql"] = "not measured (give --postgres URL or set TEST_POSTGRES_URL)"
    result["load_average"]["end"] = os.getloadavg()
    print(f"{'approve -> next step':<24}{'SQLite p50/p99 ms':>22}{'PostgreSQL p50/p99 ms':>26}")
    for way in ("wake", "wake_send", "cli", "cli_command", "cli_command_cpu"):
        cells = [result[e] if isinstance(result[e], str) else result[e][way] for e in ("sqlite", "postgresql")]
        text = [c if isinstance(c, str) else f"{c['p50_ms']:.0f} / {c['p99_ms']:.0f}" for c in cells]
        print(f"{way:<24}{text[0]:>22}{text[1][:26]:>26}")
    load = result["load_average"]
    print(f"load average (1, 5, 15 min) at the start {load['start']}, at the end {load['end']}, {load['cpus']} CPUs")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
