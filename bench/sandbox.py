"""Per-command overhead of the sandbox: each sandbox beside the same command run unconfined, in the same run.

For each command (``true``, and ``python -c pass`` with this interpreter, which the sandbox binds
read-only), each round runs, in turn: the command as a bare ``bash -c`` (the baseline), then the
command through ``chrysalis.tools.shell.run_command`` in each sandbox that works here (system bwrap,
bundled bwrap, Landlock): the whole tool path, i.e. building the confinement, the limits, the pids
cgroup where one can be made, starting, reading the output, cleaning up. Rounds interleave the rows,
so a noisy moment hits every row alike; the table shows the median of each row and its ratio to the
baseline's median.

    python bench/sandbox.py [--repeats 21]

Writes bench/results/sandbox.json: per command, the baseline seconds and, per sandbox, ``seconds``
(median), ``ratio`` (to the baseline) and ``overhead_ms``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chrysalis.tools.base import ToolContext
from chrysalis.tools.sandbox import BACKENDS, BackendName, SandboxOptions, probe
from chrysalis.tools.sandbox_env import command_env
from chrysalis.tools.shell import run_command

RESULTS = Path(__file__).resolve().parent / "results" / "sandbox.json"
COMMANDS = {"true": "true", "python -c pass": f"{sys.executable} -c pass"}


def bare(command: str, workspace: Path) -> float:
    """One unconfined run: ``bash -c`` with the same filtered environment and a pipe for the output."""
    env = command_env(os.environ, PATH=os.environ.get("PATH", os.defpath))
    started = time.perf_counter()
    subprocess.run(["bash", "-c", command], cwd=workspace, env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def confined(command: str, context: ToolContext) -> float:
    started = time.perf_counter()
    code, report = run_command(command, context)
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"{command!r} failed in the sandbox: {report}")
    return elapsed


def measure(command: str, workspace: Path, kinds: list[BackendName], repeats: int) -> dict[str, Any]:
    contexts = {k: ToolContext(workspace=workspace, sandbox_options=SandboxOptions(backend=k)) for k in kinds}
    times: dict[str, list[float]] = {"bare": [], **{k: [] for k in kinds}}
    for round_ in range(repeats + 1):  # round 0 warms the caches and is dropped
        samples = {"bare": bare(command, workspace)} | {k: confined(command, c) for k, c in contexts.items()}
        if round_:
            for name, seconds in samples.items():
                times[name].append(seconds)
    base = statistics.median(times["bare"])
    rows = {k: {"seconds": statistics.median(times[k])} for k in kinds}
    for row in rows.values():
        row["ratio"] = row["seconds"] / base
        row["overhead_ms"] = (row["seconds"] - base) * 1000
    return {"bare_seconds": base, "sandboxes": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    kinds = [k for k in BACKENDS if probe(k).works]
    skipped = {k: probe(k).problem for k in BACKENDS if k not in kinds}
    results: dict[str, Any] = {
        "repeats": args.repeats,
        "machine": f"{platform.node()} {os.cpu_count()} cpus",
        "versions": {k: probe(k).version for k in kinds},
        "not_working": skipped,
        "commands": {},
    }
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-") as tmp:
        workspace = Path(tmp).resolve()
        for label, command in COMMANDS.items():
            results["commands"][label] = measure(command, workspace, kinds, args.repeats)
    print(f"{'command':<16} {'bare ms':>8}  " + "  ".join(f"{k:>22}" for k in kinds))
    for label, row in results["commands"].items():
        cells = [f"{row['sandboxes'][k]['seconds'] * 1000:7.1f} ms {row['sandboxes'][k]['ratio']:5.1f}x" for k in kinds]
        print(f"{label:<16} {row['bare_seconds'] * 1000:8.1f}  " + "  ".join(f"{c:>22}" for c in cells))
    for kind, problem in skipped.items():
        print(f"{kind}: not measured ({problem})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
