"""The cost of confining an MCP server and snapshotting its calls: three ways to call one tool, side by side.

One tiny stdio MCP server (the SDK's ``MCPServer``, one ``echo`` tool) is started three ways and
called in turn, round after round, so a noisy moment hits every row alike:

- ``unconfined``: the SDK's ``stdio_client`` with the plain command line (how servers ran before);
- ``sandboxed``: ``McpServer`` as a run starts it, in the sandbox of commands, workspace read-only;
- ``sandboxed+snapshots``: the same with the workspace writable, each call through the gate's
  ``CheckpointTools`` and ``RunTools`` (a workspace snapshot before and after, as undo needs).

The workspace is a git repository of ``--files`` small files (a snapshot's cost grows with it).
Per row: p50, p99 and mean per call, and the ratio of its p50 to ``unconfined``'s; and the time
to start each server (spawn to ``initialize`` and ``tools/list`` answered).

    python bench/mcp_sandbox.py [--calls 100] [--files 200]

(Not bench/mcp_overhead.py: that one measures ``chrysalis serve --mcp`` against an in-process call.)

Writes bench/results/mcp_sandbox.json, with the command, commit and date.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from chrysalis.agent.gate.call import Call
from chrysalis.agent.gate.checkpoint import CheckpointTools
from chrysalis.agent.gate.run import RunTools
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolContext
from chrysalis.tools.mcp_client import McpArgs, McpServer
from chrysalis.tools.mcp_config import McpServerAccess, McpServerConfig
from chrysalis.tools.sandbox import SandboxOptions, select_backend

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "mcp_sandbox.json"
SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench")
@server.tool(description="Return TEXT.")
def echo(text: str) -> str:
    return text
server.run("stdio")
"""
CallOnce = Callable[[], Awaitable[str]]


def summary(seconds: list[float]) -> dict[str, float]:
    """p50, p99 (nearest rank) and mean in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ms[min(len(ms) - 1, round(0.99 * len(ms) + 0.5) - 1)], 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }


def workspace_of(root: Path, files: int) -> Path:
    """A git repository of ``files`` small files."""
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    for n in range(files):
        (ws / "src" / f"m{n}.py").write_text(f"def f{n}(x):\n    return x + {n}\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "s"]):
        subprocess.run(["git", *args], cwd=ws, check=True)
    return ws


async def sandboxed(config: McpServerConfig, ws: Path, home: Path, *, writable: bool) -> tuple[McpServer, float]:
    """``McpServer`` started as a run starts it; and how long the start took."""
    server = McpServer(
        config,
        workspace=ws,
        log_dir=home / "logs",
        access=lambda _c: McpServerAccess(writable=writable, network=False),
        options=SandboxOptions(),
    )
    started = time.perf_counter()
    await server.start()
    if server.error:
        raise RuntimeError(f"the server did not start: {server.state}")
    return server, time.perf_counter() - started


def through_gate(server: McpServer, ws: Path, stores: Stores) -> CallOnce:
    """A call as the gate makes it for a server that may write: ``CheckpointTools`` then ``RunTools``."""
    context = ToolContext(workspace=ws)
    [spec] = server.specs().values()
    tools = CheckpointTools(
        inner=RunTools(context=context),
        snapshot=partial(stores.checkpoints.around_command, "bench", ws),
        context=context,
    )

    async def once() -> str:
        args = McpArgs.model_validate({"text": "hi"})
        result = await tools.call(Call(spec, args, {"text": "hi"}, "c"))
        return str(result.result) if result.ok else f"failed: {result.error}"

    return once


async def measure_async(calls: int, ws: Path, home: Path) -> dict[str, Any]:
    """Start the three servers, then time ``calls`` calls of each, in turn, after one warm-up round."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    config = McpServerConfig("bench", "bench", command=sys.executable, args=("-c", SERVER), level=2)
    starts: dict[str, float] = {}
    stores = Stores.open(home)
    began = time.perf_counter()
    params = StdioServerParameters(command=sys.executable, args=["-c", SERVER], cwd=ws)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as plain:
        await plain.initialize()
        await plain.list_tools()
        starts["unconfined"] = time.perf_counter() - began
        read_only, starts["sandboxed"] = await sandboxed(config, ws, home, writable=False)
        writable, starts["sandboxed+snapshots"] = await sandboxed(config, ws, home, writable=True)

        async def unconfined() -> str:
            result = await plain.call_tool("echo", {"text": "hi"})
            return "hi" if not result.is_error else "failed"

        rows: dict[str, CallOnce] = {
            "unconfined": unconfined,
            "sandboxed": lambda: _output(read_only.call("echo", {"text": "hi"})),
            "sandboxed+snapshots": through_gate(writable, ws, stores),
        }
        times = await _rounds(rows, calls)
        await read_only.stop()
        await writable.stop()
    stores.close()
    return _report(times, starts, calls)


async def _output(pending: Awaitable[Any]) -> str:
    result = await pending
    return str(result.result) if result.ok else f"failed: {result.error}"


async def _rounds(rows: dict[str, CallOnce], calls: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in rows}
    for index in range(calls + 1):  # round 0 warms every path up and is dropped
        for name, once in rows.items():
            started = time.perf_counter()
            said = await once()
            elapsed = time.perf_counter() - started
            if said != "hi":
                raise RuntimeError(f"{name}: the call failed: {said}")
            if index:
                times[name].append(elapsed)
    return times


def _report(times: dict[str, list[float]], starts: dict[str, float], calls: int) -> dict[str, Any]:
    rows = {name: summary(seconds) for name, seconds in times.items()}
    base = rows["unconfined"]["p50_ms"]
    for name, row in rows.items():
        row["ratio_p50"] = round(row["p50_ms"] / base, 2)
        row["start_ms"] = round(starts[name] * 1000, 1)
    return {"calls": calls, "rows": rows}


def measure(calls: int = 100, files: int = 200) -> dict[str, Any]:
    """A fresh workspace of ``files`` files and CHRYSALIS_HOME-like folder; ``calls`` calls of each row."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-mcp-") as tmp:
        root = Path(tmp).resolve()
        ws, home = workspace_of(root, files), root / "home"
        home.mkdir()
        result = asyncio.run(measure_async(calls, ws, home))
    return result | {"files": files, "sandbox": select_backend(SandboxOptions()).kind}


def provenance() -> dict[str, Any]:
    """The command, the commit measured (and whether src/ had uncommitted changes), the date and the machine."""

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", *args], cwd=BENCH, capture_output=True, text=True, timeout=10, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--", "../src")
    return {
        "command": " ".join(["python", *sys.argv]),
        "commit": git("rev-parse", "--short", "HEAD"),
        "src_uncommitted_changes": None if status is None else bool(status),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--files", type=int, default=200)
    args = parser.parse_args()
    result = measure(args.calls, args.files)
    print(f"{'row':<22}{'p50 ms':>9}{'p99 ms':>9}{'mean ms':>9}{'ratio':>8}{'start ms':>10}")
    for name, row in result["rows"].items():
        cells = (row["p50_ms"], row["p99_ms"], row["mean_ms"], row["ratio_p50"], row["start_ms"])
        print(f"{name:<22}" + "".join(f"{c:>{w}}" for c, w in zip(cells, (9, 9, 9, 8, 10), strict=True)))
    result |= provenance()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
