"""Start-up cost: `chrysalis --help` and the time to the first model request, against `python -c pass`.

The first request is timed twice: a cold run (its own process imports everything), and a run with
``chrysalis daemon`` running, which forks the run from a process that has already imported it.

Ratios against the bare interpreter in the same run, because these machines are noisy. The first
model request goes to a scripted OpenAI-compatible server on 127.0.0.1, which records when each
request arrives (server side, ``time.perf_counter()`` in this process), so "time to first model
request" is process start -> arrival of the first request: our imports and set-up, not a model. It runs
``chrysalis run TASK --base-url URL --model bench --json --level 0 --workspace DIR`` through the console
script, the command ``bench/overhead.py`` times beside its peers. Issue 11's target is under 0.5 s.

Then, once, the same command with ``PYTHONPROFILEIMPORTTIME=1`` (``-X importtime``): the imports
logged before the server saw the first request (the log's size is read when that request arrives) are
summed per top-level import, to show where the start-up goes. Import-time profiling slows imports
down, so those milliseconds explain the measured time and are not themselves the measurement.

    python bench/startup.py [--imports 10]

Writes bench/results/startup.json: per row ``seconds`` (median) and ``ratio`` (to ``python -c pass``);
the first-request row also has ``target_s``, ``met`` and ``command``; ``imports_before_first_request``
holds ``top_level`` (the top-level imports, largest cumulative first: they partition the import time),
``by_package`` (each package's modules' own time, summed) and ``slowest_self`` (single modules by their
own time), in milliseconds under import-time profiling; and ``provenance`` (``bench/egress.py``: the command,
the commit, the date, the machine and its load average, which these wall-clock times depend on).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from chrysalis.llm.testing import ScriptedOpenAIServer
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "startup.json"
REPEATS = 9
FIRST_REQUEST_REPEATS = 5
FIRST_REQUEST_TARGET_S = 0.5
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def median_of(command: list[str], env: dict[str, str], repeats: int = REPEATS) -> float:
    timed(command, env)  # warm the file cache
    return statistics.median(timed(command, env) for _ in range(repeats))


def chrysalis_command() -> str:
    """The console script beside this interpreter: what a user types."""
    return str(Path(sys.executable).with_name("chrysalis"))


def run_command(base_url: str, workspace: Path) -> list[str]:
    """``chrysalis run`` exactly as ``bench/overhead.py`` runs it (read-only, JSON events)."""
    return [
        chrysalis_command(),
        "run",
        "say done",
        "--base-url",
        base_url,
        "--model",
        "bench",
        "--json",
        "--level",
        "0",
        "--workspace",
        str(workspace),
    ]


def first_request_seconds(env: dict[str, str], workspace: Path) -> float:
    """Median time from process start until the scripted server has seen the first request."""
    times: list[float] = []
    for attempt in range(FIRST_REQUEST_REPEATS + 1):  # the first one warms the file cache
        with ScriptedOpenAIServer(["done"]) as server:
            started = time.perf_counter()
            subprocess.run(run_command(server.base_url, workspace), env=env, check=True, capture_output=True)
            assert server.request_times, "the server saw no request"
            if attempt:
                times.append(server.request_times[0] - started)
    return statistics.median(times)


def warm_first_request_seconds(env: dict[str, str], workspace: Path) -> float:
    """The same, with ``chrysalis daemon`` running for this home (the run is forked from its warm process)."""
    daemon = [chrysalis_command(), "daemon"]
    subprocess.run([*daemon, "start"], env=env, check=True, capture_output=True)
    try:
        return first_request_seconds(env, workspace)
    finally:
        subprocess.run([*daemon, "stop"], env=env, check=True, capture_output=True)


@dataclass(frozen=True)
class ImportRow:
    """One line of ``-X importtime`` output."""

    name: str
    depth: int
    """0 for an import made at the top (not inside another module's import)."""
    self_us: int
    cumulative_us: int


def parse_importtime(text: str) -> list[ImportRow]:
    """The rows of an ``-X importtime`` log, in the order Python wrote them (other lines are skipped)."""
    rows: list[ImportRow] = []
    for line in text.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            self_us, cumulative_us, indent, name = match.groups()
            rows.append(ImportRow(name, len(indent) // 2, int(self_us), int(cumulative_us)))
    return rows


def summarize_imports(rows: list[ImportRow], top: int) -> dict[str, Any]:
    """Where the import time goes, in ms: the largest top-level imports (cumulative), each package's own time
    summed over its modules (whoever imported them), and the slowest single modules."""
    top_level = sorted((r for r in rows if r.depth == 0), key=lambda r: r.cumulative_us, reverse=True)
    slowest = sorted(rows, key=lambda r: r.self_us, reverse=True)
    per_package: dict[str, int] = {}
    for row in rows:
        package = row.name.split(".")[0]
        per_package[package] = per_package.get(package, 0) + row.self_us
    packages = sorted(per_package.items(), key=lambda item: item[1], reverse=True)
    return {
        "total_ms": round(sum(r.cumulative_us for r in rows if r.depth == 0) / 1000, 1),
        "top_level": [{"module": r.name, "cumulative_ms": round(r.cumulative_us / 1000, 1)} for r in top_level[:top]],
        "by_package": [{"package": name, "self_ms": round(us / 1000, 1)} for name, us in packages[:top]],
        "slowest_self": [
            {"module": r.name, "self_ms": round(r.self_us / 1000, 1), "depth": r.depth} for r in slowest[:top]
        ],
    }


def imports_before_first_request(env: dict[str, str], workspace: Path, top: int) -> dict[str, Any]:
    """Profile one ``chrysalis run``'s imports up to the moment its first request reaches the server."""
    seen: dict[str, int] = {}
    with tempfile.TemporaryFile() as log:

        def reply(_body: dict[str, Any]) -> str:
            seen.setdefault("offset", os.fstat(log.fileno()).st_size)  # what was logged before this request
            return "done"

        with ScriptedOpenAIServer(reply, max_requests=1) as server:
            profiled = {**env, "PYTHONPROFILEIMPORTTIME": "1"}
            subprocess.run(
                run_command(server.base_url, workspace), env=profiled, check=True, stdout=subprocess.DEVNULL, stderr=log
            )
        text = _read_prefix(log, seen.get("offset"))
    summary = summarize_imports(parse_importtime(text), top)
    summary["note"] = "ms under PYTHONPROFILEIMPORTTIME (slower than a plain run); imports logged before request 1"
    return summary


def _read_prefix(log: IO[bytes], size: int | None) -> str:
    log.seek(0)
    data = log.read() if size is None else log.read(size)
    return data.decode("utf-8", errors="replace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--imports", type=int, default=10, help="how many imports to list (0: skip the profile)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CHRYSALIS_HOME": home}
        workspace = Path(home) / "workspace"
        workspace.mkdir()
        baseline = median_of([sys.executable, "-c", "pass"], env)
        help_time = median_of([chrysalis_command(), "--help"], env)
        first = first_request_seconds(env, workspace)
        warm = warm_first_request_seconds(env, workspace)
        imports = imports_before_first_request(env, workspace, args.imports) if args.imports > 0 else None
    rows = [
        ("python -c pass", baseline, 1.0),
        ("chrysalis --help", help_time, help_time / baseline),
        ("time to first model request", first, first / baseline),
        ("first model request, daemon running", warm, warm / baseline),
    ]
    print(f"{'what':32} {'seconds':>9} {'× python':>9}")
    for name, seconds, ratio in rows:
        print(f"{name:32} {seconds:9.3f} {ratio:9.1f}")
    report: dict[str, Any] = {"provenance": provenance()}
    report.update({name: {"seconds": round(s, 4), "ratio": round(r, 2)} for name, s, r in rows})
    for name, seconds in (("time to first model request", first), ("first model request, daemon running", warm)):
        met = seconds < FIRST_REQUEST_TARGET_S
        print(f"{name}: {seconds:.3f} s, target < {FIRST_REQUEST_TARGET_S} s: {'met' if met else 'NOT met'}")
        report[name].update(
            target_s=FIRST_REQUEST_TARGET_S,
            met=met,
            command="chrysalis run TASK --base-url URL --model bench "
            "--json --level 0 --workspace DIR (process start -> the server's arrival time of request 1)",
        )
    if imports is not None:
        print(f"\nimports before the first request (under import-time profiling, {imports['total_ms']} ms in all):")
        for row in imports["top_level"]:
            print(f"  {row['cumulative_ms']:8.1f} ms  {row['module']}")
        print("the same time by package (each module's own time, summed):")
        for row in imports["by_package"]:
            print(f"  {row['self_ms']:8.1f} ms  {row['package']}")
        report["imports_before_first_request"] = imports
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
