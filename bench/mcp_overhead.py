"""The overhead of an MCP tool call: ``read_file`` through ``chrysalis serve --mcp`` against the same call in process.

Both sides run the same gate (``GatedTools``: validate, policy, run, redact, report) on the same
small file. In process, the call is ``GatedTools.call``; over MCP, the SDK's ``ClientSession``
(already initialised) sends ``tools/call`` over stdio to a ``chrysalis serve --mcp`` subprocess,
which validates, runs the same gate and answers. The calls alternate (in process, MCP, ...) so a
burst of load from other processes hits both; p50 and p99 per call, and their ratio. The machine
is shared and the bench runs niced: the numbers are noisy; compare the ratio, not the absolutes.

    nice -n 19 python bench/mcp_overhead.py [--calls 200]

(Not bench/mcp.py: a script named mcp.py would shadow the SDK it imports.)

Writes bench/results/mcp.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "mcp.json"
SRC = Path(__file__).resolve().parents[1] / "src"
SMALL_FILE = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(1, 41))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, by the nearest rank (p99 of 200 calls is the 198th)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(seconds: list[float]) -> dict[str, float]:
    """p50, p99 and mean in milliseconds."""
    ms = [s * 1000 for s in seconds]
    return {
        "p50_ms": round(percentile(ms, 0.5), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }


async def measure_async(calls: int, workspace: Path, home: Path) -> dict[str, Any]:
    """Time ``calls`` read_file calls each way, alternating, after one warm-up call each."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from chrysalis.agent.guards import RunGuards
    from chrysalis.agent.limits import RunLimits
    from chrysalis.agent.toolset import GatedTools
    from chrysalis.config import load_settings
    from chrysalis.evolve.priority import plan_for
    from chrysalis.stores import Stores
    from chrysalis.tools.registry import builtin_tools

    settings = load_settings({"workspace": workspace, "level": 0}, environ={"CHRYSALIS_HOME": str(home)})
    stores = Stores.open(home)
    limits = RunLimits.of(settings, plan_for(settings.priority))
    gate = GatedTools.for_run(
        settings,
        builtin_tools(),
        run_id="bench",
        checkpoints=stores.checkpoints,
        emit=lambda event: stores.traces.record(event.run_id, event.to_json()),
        approver=None,
        limits=limits,
    )
    args = {"path": "small.txt"}
    env = {**os.environ, "CHRYSALIS_HOME": str(home), "PYTHONPATH": str(SRC)}
    params = StdioServerParameters(
        command=sys.executable,
        env=env,
        args=["-m", "chrysalis", "serve", "--mcp", "--level", "0", "--workspace", str(workspace)],
    )
    local: list[float] = []
    remote: list[float] = []
    try:
        async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=120) as mcp:
            await mcp.initialize()
            for index in range(calls + 1):  # round 0 warms both paths up and is dropped
                # as the server does per call: no "repeated call" refusals
                gate.guards = RunGuards(max_red_flags=limits.max_red_flags)
                started = time.perf_counter()
                answer = await gate.call("read_file", args, f"local-{index}")
                between = time.perf_counter()
                result = await mcp.call_tool("read_file", args)
                ended = time.perf_counter()
                if not answer["ok"] or result.is_error or "line 40" not in result.content[0].text:  # type: ignore[union-attr]
                    raise RuntimeError(f"a call failed: {answer} / {result}")
                if index:
                    local.append(between - started)
                    remote.append(ended - between)
    finally:
        stores.close()
    in_process, over_mcp = summary(local), summary(remote)
    return {
        "calls": calls,
        "file_bytes": len(SMALL_FILE),
        "in_process": in_process,
        "mcp_stdio": over_mcp,
        "ratio_p50": round(over_mcp["p50_ms"] / in_process["p50_ms"], 1),
        "ratio_p99": round(over_mcp["p99_ms"] / in_process["p99_ms"], 1),
        "overhead_p50_ms": round(over_mcp["p50_ms"] - in_process["p50_ms"], 3),
    }


def measure(calls: int = 200) -> dict[str, Any]:
    """Set up a workspace with one small file and a fresh CHRYSALIS_HOME, then time both ways."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-mcp-") as tmp:
        workspace, home = Path(tmp) / "ws", Path(tmp) / "home"
        workspace.mkdir()
        home.mkdir()
        (workspace / "small.txt").write_text(SMALL_FILE)
        return asyncio.run(measure_async(calls, workspace, home))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    result = measure(args.calls)
    print(f"read_file of a {result['file_bytes']}-byte file, {result['calls']} calls each way (alternating)")
    print(f"{'path':<14}{'p50 ms':>9}{'p99 ms':>9}{'mean ms':>9}")
    for name in ("in_process", "mcp_stdio"):
        row = result[name]
        print(f"{name:<14}{row['p50_ms']:>9}{row['p99_ms']:>9}{row['mean_ms']:>9}")
    print(
        f"MCP / in process: {result['ratio_p50']}x at p50, {result['ratio_p99']}x at p99 "
        f"(+{result['overhead_p50_ms']} ms per call at p50)"
    )
    result["provenance"] = provenance()
    result["machine"] = {"nice": os.nice(0), "note": "a shared 2-core machine: noisy; compare the ratio"}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
