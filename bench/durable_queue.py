"""The durable runtime's costs: per step against a plain run, throughput of the queue, recovery after SIGKILL.

Everything runs as a user runs it (``chrysalis`` processes) against a scripted model on 127.0.0.1,
so the model costs nothing and what is measured is the framework:

- **per step**: a run of S read-only steps (``read_file`` of one line each, then an answer), as a
  plain ``chrysalis run`` and as ``submit`` + ``worker --exit-when-idle``, for S = 5 and 45; the
  per-step cost is the slope (t45 - t5) / 40, so start-up (Python, imports, DBOS launch) cancels.
  The durable/plain ratio of the slopes is the overhead of recording each step.
- **throughput**: N no-op runs (one model reply each, ``--mode ask``) queued, then 1 or 2 workers
  (``--concurrency 4`` each) started at once; runs per second from the workers' start to the last
  run done, on SQLite and, when ``TEST_POSTGRES_URL`` is set, on PostgreSQL.
- **recovery**: a worker SIGKILLed while its run waits for a model reply; the time from starting the
  next worker to the run's next model request (the run resumed), and to the run done.

    python bench/durable_queue.py [--rounds 3] [--runs 40]

(The issue names it bench/queue.py; a file of that name in bench/ hides the standard library's
``queue`` from every script run from this folder, so it is named for what it measures.)

Writes bench/results/queue.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

RESULTS = Path(__file__).resolve().parent / "results" / "queue.json"
CHRYSALIS = [sys.executable, "-m", "chrysalis"]
STEPS = (5, 45)


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*CHRYSALIS, *args], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"chrysalis {' '.join(args[:2])} exited {done.returncode}: {done.stderr[-2000:]}")
    return done


def _reader(steps: int) -> Any:
    """A model that reads line i of notes.txt for i = 1..steps, then answers."""

    def reply(body: dict[str, Any]) -> ScriptedReply:
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if done >= steps:
            return ScriptedReply(text="read them all")
        return ScriptedReply.tool_call("read_file", {"path": "notes.txt", "start_line": done + 1, "end_line": done + 1})

    return reply


def _env(home: Path, database_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRYSALIS_")}
    env["CHRYSALIS_HOME"] = str(home)
    if database_url:
        env["CHRYSALIS_DATABASE_URL"] = database_url
    return env


def one_run(durable: bool, steps: int, root: Path) -> float:
    """Seconds for one run of ``steps`` steps, from the first command to the run's end."""
    workspace = root / uuid.uuid4().hex[:8]
    workspace.mkdir()
    (workspace / "notes.txt").write_text("".join(f"line {i}\n" for i in range(1, steps + 2)))
    env = _env(root / "home")
    common = [
        "--base-url",
        "",
        "--model",
        "scripted",
        "--mode",
        "ask",
        "--max-steps",
        str(steps + 5),
        "--workspace",
        str(workspace),
    ]
    with ScriptedOpenAIServer(_reader(steps), max_requests=steps + 5) as server:
        common[1] = server.base_url
        started = time.perf_counter()
        if durable:
            _run(["submit", "read the notes", *common], env)
            _run(["worker", "--exit-when-idle"], env)
        else:
            _run(["run", "read the notes", *common], env)
        return time.perf_counter() - started


def per_step(rounds: int, root: Path) -> dict[str, Any]:
    times: dict[str, dict[int, list[float]]] = {"plain": {s: [] for s in STEPS}, "durable": {s: [] for s in STEPS}}
    for _ in range(rounds):  # interleaved, so a noisy moment hits both alike
        for steps in STEPS:
            for mode in ("plain", "durable"):
                times[mode][steps].append(one_run(mode == "durable", steps, root))
    out: dict[str, Any] = {}
    for mode, by_steps in times.items():
        medians = {s: statistics.median(v) for s, v in by_steps.items()}
        out[mode] = {
            "seconds": medians,
            "ms_per_step": (medians[STEPS[1]] - medians[STEPS[0]]) / (STEPS[1] - STEPS[0]) * 1000,
        }
    out["ratio"] = out["durable"]["ms_per_step"] / out["plain"]["ms_per_step"]
    out["overhead_ms_per_step"] = out["durable"]["ms_per_step"] - out["plain"]["ms_per_step"]
    return out


def throughput(runs: int, workers: int, root: Path, database_url: str | None) -> dict[str, Any]:
    """Runs per second through the queue with ``workers`` workers."""
    from chrysalis.config import load_settings
    from chrysalis.runtime.database import database_url as url_of
    from chrysalis.runtime.database import open_engine
    from chrysalis.runtime.queue import submit
    from chrysalis.runtime.runs import RunStore

    home = root / f"home-{uuid.uuid4().hex[:6]}"
    env = _env(home, database_url)
    settings = load_settings({}, env)
    url = url_of(settings)
    with ScriptedOpenAIServer(lambda _b: ScriptedReply(text="ok"), max_requests=runs + 5) as server:
        options = {"base_url": server.base_url, "model": "scripted", "mode": "ask", "workspace": str(root)}
        with RunStore(open_engine(url)) as store:
            ids = [submit(url, store, f"say ok {i}", options, "normal").id for i in range(runs)]
        started = time.perf_counter()
        procs = [
            subprocess.Popen(
                [*CHRYSALIS, "worker", "--exit-when-idle", "--concurrency", "4"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(workers)
        ]
        for proc in procs:
            _out, err = proc.communicate(timeout=600)
            if proc.returncode != 0:
                raise RuntimeError(f"worker exited {proc.returncode}: {err[-2000:]}")
        seconds = time.perf_counter() - started
        with RunStore(open_engine(url)) as store:
            statuses = [store.get(i).status for i in ids]
    if statuses.count("done") != runs:
        raise RuntimeError(f"not all runs done: {statuses}")
    return {"runs": runs, "workers": workers, "seconds": seconds, "runs_per_second": runs / seconds}


def recovery(root: Path) -> dict[str, Any]:
    """Seconds from starting a worker after a SIGKILL to the run resuming (its next request) and finishing."""
    from chrysalis.config import load_settings
    from chrysalis.runtime.database import database_url as url_of
    from chrysalis.runtime.database import open_engine
    from chrysalis.runtime.queue import submit
    from chrysalis.runtime.runs import RunStore

    home = root / f"home-{uuid.uuid4().hex[:6]}"
    env = _env(home)
    replies = iter([ScriptedReply(text="never delivered", held=True), ScriptedReply(text="resumed")])
    with ScriptedOpenAIServer(lambda _b: next(replies), max_requests=5) as server:
        url = url_of(load_settings({}, env))
        options = {"base_url": server.base_url, "model": "scripted", "mode": "ask", "workspace": str(root)}
        with RunStore(open_engine(url)) as store:
            run_id = submit(url, store, "say something", options, "normal").id
        doomed = subprocess.Popen([*CHRYSALIS, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server.wait_for_requests(1, timeout=120)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        started = time.perf_counter()
        survivor = subprocess.Popen(
            [*CHRYSALIS, "worker", "--exit-when-idle"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        server.wait_for_requests(2, timeout=120)
        resumed = time.perf_counter() - started
        survivor.wait(timeout=120)
        finished = time.perf_counter() - started
        server.release()
        with RunStore(open_engine(url)) as store:
            status = store.get(run_id).status
    return {"resumed_s": resumed, "finished_s": finished, "status": status}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=40)
    options = parser.parse_args()
    postgres = os.environ.get("TEST_POSTGRES_URL")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        steps = per_step(options.rounds, root)
        print(
            f"per step: plain {steps['plain']['ms_per_step']:.1f} ms, durable {steps['durable']['ms_per_step']:.1f} ms "
            f"(x{steps['ratio']:.2f}, +{steps['overhead_ms_per_step']:.1f} ms a step)"
        )
        flows = []
        for engine, url in (("sqlite", None), ("postgresql", postgres)):
            if engine == "postgresql" and not url:
                print("postgresql: TEST_POSTGRES_URL not set, skipped")
                continue
            for workers in (1, 2):
                if url:
                    url = _fresh_database(url)
                row = {"engine": engine, **throughput(options.runs, workers, root, url)}
                flows.append(row)
                print(
                    f"{engine:10} {workers} worker(s): {row['runs']} runs in {row['seconds']:.1f} s, "
                    f"{row['runs_per_second']:.1f} runs/s"
                )
        rec = recovery(root)
        print(
            f"recovery after SIGKILL: resumed {rec['resumed_s']:.2f} s after the next worker started, "
            f"done after {rec['finished_s']:.2f} s ({rec['status']})"
        )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "per_step": steps,
                "throughput": flows,
                "recovery": rec,
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                "date": time.strftime("%Y-%m-%d"),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")
    return 0


def _fresh_database(url: str) -> str:
    """A new empty PostgreSQL database beside ``url``'s (the role may create databases), for one measurement."""
    from sqlalchemy import create_engine, text

    name = f"chrysalis_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return url.rsplit("/", 1)[0] + f"/{name}"


if __name__ == "__main__":
    sys.exit(main())
