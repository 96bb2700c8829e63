"""Many workers, many processes, one database: a soak with SIGKILLs, and a check that every run was done once.

N runs, with urgencies drawn at random, are submitted at a steady rate while W ``chrysalis worker``
processes serve the queue of one database (PostgreSQL: 4 workers; SQLite: 2). At K random points
of progress (the arrival of the n-th model request, n drawn at random) a random live worker is
SIGKILLed and a new one started in its place, as a supervisor would restart it. Each run is three
steps against a scripted model on 127.0.0.1 that answers like a slow model (``--thinking`` seconds):

    read_file notes.txt     a read (a repeated one changes nothing)
    edit_file notes.txt     appends the run's line: an effect that is wrong if done twice or never
    an answer               the run ends

Afterwards, from the database, the workspaces and the model's log:

- **lost**: runs not ``done``;
- **effects**: each run's notes.txt holds its line exactly once (a write interrupted by a kill is
  put back from its pre-image and done again, ``runtime/durable.py``), counted 0 / 1 / more;
- **re-sent requests**: a model request sent again for the same run and step. Steps are
  at-least-once, so the step a killed worker was in is sent again; one re-sent with no kill between
  the two sendings would mean two workers ran the same run, and is counted apart (must be 0);
- throughput (runs/s, first submit to last run done) and queue latency p50/p99 by urgency (submit
  to the run's first model request).

    python bench/soak.py [--runs 200] [--workers 4] [--sqlite-workers 2] [--kills 12] [--postgres URL]

PostgreSQL runs on a fresh database of its own (created, then dropped) on the server of
``--postgres URL`` or ``TEST_POSTGRES_URL``; without either it is "not measured".
Writes bench/results/soak.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from approval_latency import fresh_postgres
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "soak.json"
CHRYSALIS = [sys.executable, "-m", "chrysalis"]
URGENCY_WEIGHTS = {"critical": 1, "high": 2, "normal": 4, "low": 2, "idle": 1}
"""How often each urgency is drawn: most work is normal, a little is urgent or can wait."""
STEPS = 3
"""Model requests per run: read, edit, answer."""
_TAG = re.compile(r"\[soak (r\d+)\]")


def _model(thinking_s: float) -> Any:
    """The scripted model: read notes.txt, append the run's line to it, answer; each reply after ``thinking_s``."""

    def reply(body: dict[str, Any]) -> ScriptedReply:
        tag = run_tag(body)
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if done == 0:
            return ScriptedReply(tool_calls=(("read_file", {"path": "notes.txt"}),), thinking_s=thinking_s)
        if done == 1:
            edit = {"path": "notes.txt", "old_text": "END", "new_text": f"line of {tag}\nEND"}
            return ScriptedReply(tool_calls=(("edit_file", edit),), thinking_s=thinking_s)
        return ScriptedReply(text=f"{tag} appended its line.", thinking_s=thinking_s)

    return reply


def run_tag(body: dict[str, Any]) -> str:
    """The run a model request belongs to (its task says ``[soak rNNN]``)."""
    found = _TAG.search(json.dumps(body.get("messages", [])))
    return found.group(1) if found else "?"


@dataclass
class Fleet:
    """The worker processes: started together, SIGKILLed one at a time, replaced at once."""

    env: dict[str, str]
    logs: Path
    concurrency: int
    alive: list[subprocess.Popen[bytes]] = field(default_factory=list)
    killed: list[tuple[float, int]] = field(default_factory=list)
    """(time.perf_counter(), pid) of each SIGKILL."""
    stuck: int = 0
    """Workers still alive 120 s after Ctrl-C, killed (see ``stop``)."""
    _files: list[IO[bytes]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        """One more worker, its stderr (the worker's log) into a file of its own."""
        log = open(self.logs / f"worker-{len(self._files)}.log", "wb")  # closed in stop()
        self._files.append(log)
        command = [*CHRYSALIS, "worker", "--concurrency", str(self.concurrency)]
        self.alive.append(subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=log))

    def wait_until_serving(self, guard_s: float) -> None:
        """Until every worker started so far has logged that it serves the queue (polled: a benchmark, not a test)."""
        deadline = time.perf_counter() + guard_s
        while sum("serving the queue" in log.read_text() for log in self.logs.glob("worker-*.log")) < len(self.alive):
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the workers did not start; their logs are in {self.logs}")
            time.sleep(0.1)

    def kill_one(self, rng: random.Random) -> None:
        """SIGKILL a random live worker and start another in its place."""
        with self._lock:
            victim = self.alive.pop(rng.randrange(len(self.alive)))
            victim.send_signal(signal.SIGKILL)
            self.killed.append((time.perf_counter(), victim.pid))
            victim.wait()
            self.start()

    def stop(self) -> list[int]:
        """Stop the workers as Ctrl-C does; their exit codes (-9 for one that missed Ctrl-C and was killed).

        A worker that is still alive 120 s after Ctrl-C is a known bug (seen only under heavy load; the
        worker never reaches its own exit guard, ``exit_if_stuck``): it is killed, so it cannot outlive
        the run or poison the next one, and counted in ``stuck`` for the row to report.
        """
        with self._lock:
            for worker in self.alive:
                worker.send_signal(signal.SIGINT)
            codes = []
            try:
                for worker in self.alive:
                    try:
                        codes.append(worker.wait(timeout=120))
                    except subprocess.TimeoutExpired:
                        self.stuck += 1
                        worker.kill()
                        codes.append(worker.wait())
            finally:
                for log in self._files:
                    log.close()
            return codes

    def logged_done(self) -> Counter[str]:
        """How often each run id was logged as done, over every worker's log (killed ones too)."""
        counts: Counter[str] = Counter()
        for log in self.logs.glob("worker-*.log"):
            counts.update(re.findall(r"^run (\S+): done after", log.read_text(errors="replace"), re.M))
        return counts


def soak(
    root: Path,
    *,
    database_url: str | None,
    runs: int,
    workers: int,
    kills: int,
    seed: int,
    rate: float = 10.0,
    thinking_s: float = 0.05,
    concurrency: int = 2,
    guard_s: float = 1800.0,
) -> dict[str, Any]:
    """Submit ``runs`` runs at ``rate`` a second to ``workers`` workers, SIGKILL one ``kills`` times; the findings."""
    from chrysalis.config import load_settings
    from chrysalis.runtime.database import database_url as url_of
    from chrysalis.runtime.database import open_engine
    from chrysalis.runtime.queue import submit
    from chrysalis.runtime.runs import RunStore

    rng = random.Random(seed)
    env = _env(root / "home", database_url)
    url = url_of(load_settings({}, env))
    tags = [f"r{i:03d}" for i in range(runs)]
    urgencies = rng.choices(list(URGENCY_WEIGHTS), weights=list(URGENCY_WEIGHTS.values()), k=runs)
    for tag in tags:
        (root / "ws" / tag).mkdir(parents=True)
        (root / "ws" / tag / "notes.txt").write_text("START\nEND\n")
    kill_at = sorted(rng.sample(range(STEPS, runs * STEPS - STEPS), kills)) if kills else []
    (root / "logs").mkdir()
    fleet = Fleet(env, root / "logs", concurrency)
    with (
        ScriptedOpenAIServer(_model(thinking_s), max_requests=runs * STEPS * 3, max_seconds=guard_s) as server,
        RunStore(open_engine(url)) as store,
    ):
        options = {"base_url": server.base_url, "model": "scripted", "level": 2, "yes": True}
        for _ in range(workers):
            fleet.start()
        fleet.wait_until_serving(guard_s)
        started = time.perf_counter()
        killer = threading.Thread(target=_kill_at, args=(server, fleet, kill_at, rng), daemon=True)
        killer.start()
        ids: dict[str, str] = {}
        submitted: dict[str, float] = {}
        for i, tag in enumerate(tags):
            _pace(started, i, rate)
            task = f"[soak {tag}] append your line to notes.txt"
            ids[tag] = submit(url, store, task, {**options, "workspace": str(root / "ws" / tag)}, urgencies[i]).id
            submitted[tag] = time.perf_counter()
        finished_at = _wait_until_finished(store, list(ids.values()), started + guard_s)
        seconds = finished_at - started
        killer.join(timeout=5)
        codes = fleet.stop()
        records = {tag: store.get(run_id) for tag, run_id in ids.items()}
        requests = [
            (run_tag(body), _step(body), at) for body, at in zip(server.requests, server.request_times, strict=True)
        ]
    lines = Counter(_lines_of(root / "ws" / tag / "notes.txt", tag) for tag in tags)
    resent, unexplained = _resent(requests, fleet.killed)
    first_request: dict[str, float] = {}
    for tag, _step_index, at in requests:
        first_request.setdefault(tag, at)
    waited = {tag: first_request[tag] - submitted[tag] for tag in tags if tag in first_request}
    latency = {
        urgency: _percentiles([waited[t] for t, u in zip(tags, urgencies, strict=True) if u == urgency and t in waited])
        for urgency in URGENCY_WEIGHTS
    }
    done_logged = fleet.logged_done()
    return {
        "runs": runs,
        "workers": workers,
        "worker_concurrency": concurrency,
        "kills": len(fleet.killed),
        "submit_rate_per_s": rate,
        "model_thinking_s": thinking_s,
        "seconds": round(seconds, 2),
        "runs_per_second": round(runs / seconds, 2),
        "lost": sum(1 for r in records.values() if r.status != "done"),
        "statuses": dict(Counter(r.status for r in records.values())),
        "effects": {"once": lines[1], "never": lines[0], "more_than_once": sum(n for k, n in lines.items() if k > 1)},
        "model_requests": len(requests),
        "resent_requests": resent,
        "resent_without_a_kill_between": len(unexplained),
        "resent_without_a_kill_between_cases": unexplained,
        "runs_finished_more_than_once": sum(1 for tag in tags if done_logged[ids[tag]] > 1),
        "queue_latency_s": latency,
        "urgencies": dict(Counter(urgencies)),
        "worker_exit_codes_at_stop": codes,
        "workers_stuck_at_stop": fleet.stuck,
    }


def _kill_at(server: ScriptedOpenAIServer, fleet: Fleet, points: list[int], rng: random.Random) -> None:
    """SIGKILL a random worker as the model's n-th request arrives, for each n of ``points``."""
    for point in points:
        if not server.wait_for_requests(point):
            return
        fleet.kill_one(rng)


def _pace(started: float, index: int, rate: float) -> None:
    """Wait until the ``index``-th submission is due, at ``rate`` a second from ``started``."""
    delay = started + index / rate - time.perf_counter()
    if delay > 0:
        time.sleep(delay)


def _wait_until_finished(store: Any, ids: list[str], deadline: float) -> float:
    """When the last run finished (polled: this is a benchmark, not a test); raises past ``deadline``."""
    pending = set(ids)
    while pending:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{len(pending)} runs still not finished at the guard, e.g. {sorted(pending)[:5]}")
        pending = {run_id for run_id in pending if not store.get(run_id).finished}
        if pending:
            time.sleep(0.2)
    return time.perf_counter()


def _step(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")


def _lines_of(notes: Path, tag: str) -> int:
    return notes.read_text().count(f"line of {tag}\n")


def _resent(
    requests: list[tuple[str, int, float]], killed: list[tuple[float, int]]
) -> tuple[int, list[dict[str, Any]]]:
    """Requests sent again for a (run, step) already asked, and those of them with no kill since the last sending."""
    last: dict[tuple[str, int], float] = {}
    resent, unexplained = 0, []
    for tag, step, at in requests:
        if (tag, step) in last:
            resent += 1
            if not any(last[(tag, step)] <= kill_at <= at for kill_at, _pid in killed):
                unexplained.append({"run": tag, "step": step, "seconds_between": round(at - last[(tag, step)], 3)})
        last[(tag, step)] = at
    return resent, unexplained


def _percentiles(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)], 3)

    return {"n": len(ordered), "p50_s": rank(0.5), "p99_s": rank(0.99)}


def _env(home: Path, database_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRYSALIS_")}
    env["CHRYSALIS_HOME"] = str(home)
    if database_url:
        env["CHRYSALIS_DATABASE_URL"] = database_url
    return env


def _print(engine: str, row: dict[str, Any]) -> None:
    effects = row["effects"]
    print(
        f"{engine}: {row['runs']} runs, {row['workers']} workers, {row['kills']} SIGKILLs: "
        f"{row['runs_per_second']} runs/s, lost {row['lost']}, effects once {effects['once']} / never "
        f"{effects['never']} / twice+ {effects['more_than_once']}, re-sent requests {row['resent_requests']} "
        f"({row['resent_without_a_kill_between']} with no kill between)"
    )
    for urgency, figures in row["queue_latency_s"].items():
        if figures.get("n"):
            print(f"  {urgency:9} n={figures['n']:<4} queue latency p50 {figures['p50_s']} s, p99 {figures['p99_s']} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4, help="workers on PostgreSQL")
    parser.add_argument("--sqlite-workers", type=int, default=2)
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--rate", type=float, default=10.0, help="runs submitted a second")
    parser.add_argument("--thinking", type=float, default=0.05, help="seconds the scripted model takes a reply")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres", default=os.environ.get("TEST_POSTGRES_URL"), help="a PostgreSQL server URL")
    parser.add_argument("--engine", choices=("both", "sqlite", "postgresql"), default="both")
    options = parser.parse_args()
    common = {
        "runs": options.runs,
        "kills": options.kills,
        "seed": options.seed,
        "rate": options.rate,
        "thinking_s": options.thinking,
    }
    result: dict[str, Any] = {"provenance": provenance()}
    if options.engine in ("both", "postgresql"):
        if options.postgres:
            with tempfile.TemporaryDirectory() as tmp, fresh_postgres(options.postgres) as url:
                row = soak(Path(tmp), database_url=url, workers=options.workers, **common)
            result["postgresql"] = row
            _print("postgresql", row)
        else:
            result["postgresql"] = "not measured (give --postgres URL or set TEST_POSTGRES_URL)"
    if options.engine in ("both", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            row = soak(Path(tmp), database_url=None, workers=options.sqlite_workers, **common)
        result["sqlite"] = row
        _print("sqlite", row)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
