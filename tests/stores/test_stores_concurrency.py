"""Several real processes write to one home at once; nothing may be lost or damaged."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from chrysalis.stores import Stores

WORKERS = 3
EVENTS = 300
BIG_EVERY = 50  # every 50th event carries ~100 KB, far beyond PIPE_BUF, to test whole-line appends
HANG_GUARD = 600  # seconds before a worker counts as hung (they take about a second on a quiet machine)

WORKER = f"""
import sys, time
from pathlib import Path
from chrysalis.stores import Context, Stores

home, wid, n, go, ws = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.002)
run = "run-" + wid
with Stores.open(home) as stores:  # opened at the same moment, so creation and migration race too
    for i in range(n):
        text = ("x" * 100_000) if i % {BIG_EVERY} == 0 else "line\\nwith newline"
        stores.traces.record(run, {{"type": "tool_call", "i": i, "text": text}})
        if i % 3 == 0:
            stores.evals.log(run_id=run, profile="p" + wid, task_type="fix", model="m", success=i % 2 == 0,
                             duration_ms=float(i), cost_usd=0.001, input_tokens=i, output_tokens=1)
        if i % 10 == 0:
            stores.context.save(Context(memory=wid + ":" + str(i)), name="shared")
        if i % 5 == 0:
            path = ws / wid / ("f%d.txt" % i)
            stores.checkpoints.snapshot(run, ws, path)
            path.parent.mkdir(exist_ok=True)
            path.write_text("written by " + wid)
print("done", flush=True)
"""


def _run_workers(home: Path, workspace: Path, go: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(home), str(w), str(EVENTS), str(go), str(workspace)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    try:
        for proc in procs:  # wait until every interpreter has started, then release them together
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        go.touch()
        for proc in procs:
            out, err = proc.communicate(timeout=HANG_GUARD)
            assert proc.returncode == 0, err
            assert out.strip() == "done"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_concurrent_writers_lose_and_corrupt_nothing(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    _run_workers(home, workspace, tmp_path / "go")

    conn = sqlite3.connect(home / "chrysalis.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()

    lines = (home / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == WORKERS * EVENTS
    parsed = [json.loads(line) for line in lines]  # a torn or interleaved line would fail here
    for w in range(WORKERS):
        mine = [event["i"] for event in parsed if event["run_id"] == f"run-{w}"]
        assert mine == list(range(EVENTS))

    with Stores.open(home) as stores:
        for w in range(WORKERS):
            assert [e["i"] for e in stores.traces.events(f"run-{w}")] == list(range(EVENTS))
        assert stores.traces.count() == WORKERS * EVENTS
        assert {r.run_id: r.events for r in stores.traces.runs()} == {f"run-{w}": EVENTS for w in range(WORKERS)}

        summary = stores.evals.summary()
        assert sorted(s.profile for s in summary) == [f"p{w}" for w in range(WORKERS)]
        assert all(s.runs == len(range(0, EVENTS, 3)) for s in summary)

        saves = WORKERS * len(range(0, EVENTS, 10))
        assert [v for v, _ in stores.context.versions("shared")] == list(range(1, saves + 1))

        runs = stores.checkpoints.runs(workspace)
        assert sorted(r.run_id for r in runs) == [f"run-{w}" for w in range(WORKERS)]
        assert all(len(r.files) == len(range(0, EVENTS, 5)) for r in runs)
        restored = stores.checkpoints.undo(workspace, "run-1").restored
        assert len(restored) == len(range(0, EVENTS, 5))
        assert not (workspace / "1").exists()  # its files, and the folder the run made for them
        assert len(list((workspace / "0").iterdir())) == len(range(0, EVENTS, 5))
        assert stores.db.integrity_check() == "ok"


def test_threads_sharing_one_stores_object(tmp_path: Path) -> None:
    import threading

    with Stores.open(tmp_path / "home") as stores:

        def work(n: int) -> None:
            for i in range(100):
                stores.traces.record(f"t{n}", {"type": "tool_call", "i": i})
                stores.evals.log(
                    run_id=f"t{n}",
                    profile="p",
                    task_type="fix",
                    model="m",
                    success=True,
                    duration_ms=1.0,
                    cost_usd=0.0,
                    input_tokens=1,
                    output_tokens=1,
                )

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert stores.traces.count() == 400
        assert stores.evals.count() == 400
        assert all([e["i"] for e in stores.traces.events(f"t{n}")] == list(range(100)) for n in range(4))
