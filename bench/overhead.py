"""Framework time per agent step and start-up, chrysalis beside its peers, measured on a scripted loopback server.

A scripted OpenAI-compatible server on 127.0.0.1 (``chrysalis.llm.testing.ScriptedOpenAIServer``)
plays the model: it answers instantly with ``--steps`` tool calls (read the log ``app.log`` four lines
at a time), then the framework's way of finishing. The model's time is therefore zero and what is
left is each client's own work per step: parse the reply, run the tool, update the history, build and
send the next request. The server records the arrival time of every request (``request_times``,
``time.perf_counter()`` in this process), so nothing is timed inside the client.

Two tables, never mixed:

1. **Whole process, side by side** (the comparison). Each peer is one process in its own virtual
   env (``bench/peers/.venvs/``, made by ``bench/peers/setup_overhead_peers.sh``), started by a small
   driver under ``bench/peers/overhead_*.py``; chrysalis is its CLI, ``chrysalis run TASK --base-url URL
   --model bench --json --level 0 --workspace DIR``, with its built-in ``read_file`` tool. Per run:

   - ``ms_per_step`` = (arrival of the last request - arrival of the first) / (requests - 1): the
     client's work between two model calls, with start-up and shutdown left out;
   - ``startup_s`` = process start (just before ``subprocess.run``) -> arrival of the first request:
     interpreter, imports, set-up;
   - ``wall_s`` = process start -> process exit.

   One warm-up round (file cache, bytecode), then ``--runs`` rounds; every round runs every peer once,
   in a rotated order, so a noisy moment hits all peers alike. Reported: the median over runs (and the
   minimum of ms per step), and ratios to the raw ``openai`` client of the same run. A peer whose venv
   is missing is reported as not set up instead of failing the benchmark.

2. **In process** (for profiling chrysalis's layers; not comparable with table 1). The conversation
   runs inside this interpreter (the main ``.venv``), after a warm-up, through each layer of chrysalis
   and through the raw clients it sits on; ms per step is computed from the server's arrival times as
   above and divided by the in-process raw ``openai`` client's.

    python bench/overhead.py [--steps 50] [--runs 5] [--peers openai,chrysalis,...] [--no-in-process]

Writes ``bench/results/overhead.json``:

- ``benchmark``, ``steps`` (tool calls scripted), ``requests_per_run`` (``steps + 1``), ``runs``,
  ``warmup_runs``, ``python``, ``machine``, ``cpus``, ``started_at`` (UTC, ISO 8601),
  ``chrysalis_source`` (``commit`` and ``src_uncommitted_changes``: what the chrysalis row measured);
- ``whole_process``: ``baseline`` (the peer the ratios divide by), ``statistic`` (in words),
  ``targets`` (chrysalis's goals from issue 11 and whether this run met them), and ``peers``: one
  object per peer with ``label``, ``tool`` (what one tool step is), ``versions`` (installed packages),
  ``status`` (``"ok"``, ``"not set up (...)"`` or ``"failed: ..."``), and when ok ``ms_per_step``,
  ``min_ms_per_step``, ``early_ms_per_step`` and ``late_ms_per_step`` (the median gap over the first and
  the last 10 steps: a fixed cost per step shows in both, one that grows with the history only in the
  late one), ``ratio_to_openai`` (of the medians), ``paired_ratio_to_openai`` (the median over
  rounds of the ratio to the raw client's run in the same round), ``startup_s``,
  ``startup_ratio_to_openai``, ``wall_s`` (medians) and ``runs`` (each run's ``ms_per_step``,
  ``startup_s``, ``wall_s``, ``early_ms``, ``late_ms``, in round order);
- ``in_process``: ``statistic``, ``baseline`` and ``results``: per client ``ms_per_step`` (median),
  ``min_ms_per_step`` and ``ratio_to_openai``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, cast

import httpx

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from egress import provenance

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "overhead.json"
PEERS_DIR = BENCH / "peers"
VENVS = PEERS_DIR / ".venvs"
SETUP_HINT = "not set up (run bench/peers/setup_overhead_peers.sh)"
LOG_NAME = "app.log"
LINES_PER_CHUNK = 4
FINAL_ANSWER = "Nothing failed."
MINI_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
BASELINE = "openai"
STARTUP_TARGET_S = 0.5
STEP_TARGET_RATIO = 1.0
STEP_TARGET_RATIO_IF_CLIENT_IS_FLOOR = 1.2

# The task chrysalis gets on its command line: the same as the drivers' (bench/peers/overhead_common.py).
CHRYSALIS_TASK = "Read every chunk of app.log, 4 lines at a time, and tell me what failed."

Finish = Literal["text", "final_answer", "mini_submit"]
"""How a peer's agent ends: a text answer, smolagents' ``final_answer`` tool, or mini's submit command."""


@dataclass(frozen=True)
class Peer:
    """One row of the side-by-side table: how to start it and what its model script looks like."""

    key: str
    label: str
    tool: str
    """What one tool step costs it, in words (the table says when it is a subprocess)."""
    packages: tuple[str, ...]
    """Installed distributions whose versions go into the results."""
    tool_kind: Literal["read_file", "bash"]
    finish: Finish
    driver: str | None = None
    """The script under ``bench/peers/`` run in ``.venvs/KEY``; ``None`` for chrysalis (its CLI)."""
    source: Path | None = None
    """For chrysalis at another commit (``--before REF``): that commit's ``src`` (run with this venv's packages)."""


PEERS: tuple[Peer, ...] = (
    Peer(
        "openai",
        "openai client, hand-written loop (sync)",
        "read_file: Python function, native tool call",
        ("openai",),
        "read_file",
        "text",
        "overhead_openai.py",
    ),
    Peer(
        "pydantic-ai",
        "pydantic-ai Agent, stock OpenAIChatModel",
        "read_file: Python function, native tool call",
        ("pydantic-ai-slim", "openai"),
        "read_file",
        "text",
        "overhead_pydantic_ai.py",
    ),
    Peer(
        "smolagents",
        "smolagents ToolCallingAgent + OpenAIServerModel",
        "read_file: @tool function, native call",
        ("smolagents", "openai"),
        "read_file",
        "final_answer",
        "overhead_smolagents.py",
    ),
    Peer(
        "mini",
        "mini-swe-agent DefaultAgent + LitellmModel",
        "bash tool: `sed -n` in a SUBPROCESS per step",
        ("mini-swe-agent", "litellm", "openai"),
        "bash",
        "mini_submit",
        "overhead_mini.py",
    ),
    Peer(
        "chrysalis",
        "chrysalis run --json --level 0 (CLI, streams)",
        "built-in read_file (policy, guards, events, traces)",
        ("chrysalis-forge", "pydantic-ai-slim", "openai"),
        "read_file",
        "text",
    ),
)


# ---------------------------------------------------------------- pure helpers (tests/bench/test_overhead_bench.py)


def chunk_bounds(index: int, lines_per_chunk: int = LINES_PER_CHUNK) -> tuple[int, int]:
    """1-based inclusive line range of chunk ``index`` (0-based) of the log."""
    start = index * lines_per_chunk + 1
    return start, start + lines_per_chunk - 1


def make_log(steps: int, lines_per_chunk: int = LINES_PER_CHUNK) -> str:
    """The workspace's ``app.log``: ``steps`` chunks of healthy lines, so every scripted read is valid."""
    lines = [
        f"2025-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z INFO worker-{n % 4} request {n} ok in {n % 97} ms"
        for n in range(steps * lines_per_chunk)
    ]
    return "\n".join(lines) + "\n"


def peer_script(
    tool_kind: Literal["read_file", "bash"], finish: Finish, steps: int, lines_per_chunk: int = LINES_PER_CHUNK
) -> list[ScriptedReply | str]:
    """The model's side of the conversation: ``steps`` reads of successive chunks, then the peer's finish.

    ``read_file`` calls use chrysalis's argument names (``path``, ``start_line``, ``end_line``), which
    the drivers' tools share; mini's are ``bash`` commands. Every script has ``steps + 1`` replies.
    """
    replies: list[ScriptedReply | str] = []
    for index in range(steps):
        start, end = chunk_bounds(index, lines_per_chunk)
        if tool_kind == "bash":
            replies.append(ScriptedReply.tool_call("bash", {"command": f"sed -n '{start},{end}p' {LOG_NAME}"}))
        else:
            args = {"path": LOG_NAME, "start_line": start, "end_line": end}
            replies.append(ScriptedReply.tool_call("read_file", args))
    if finish == "final_answer":
        replies.append(ScriptedReply.tool_call("final_answer", {"answer": FINAL_ANSWER}))
    elif finish == "mini_submit":
        replies.append(ScriptedReply.tool_call("bash", {"command": f"printf '{MINI_SUBMIT}\\n{FINAL_ANSWER}\\n'"}))
    else:
        replies.append(FINAL_ANSWER)
    return replies


@dataclass(frozen=True)
class RunTiming:
    """One whole-process run, from the server's arrival times."""

    ms_per_step: float
    startup_s: float
    wall_s: float
    early_ms: float = 0.0
    """Median gap over the first ``EDGE_GAPS`` steps (short history): the fixed cost of a step."""
    late_ms: float = 0.0
    """Median gap over the last ``EDGE_GAPS`` steps (long history): fixed cost plus what grows with the history."""


EDGE_GAPS = 10
"""How many steps at each end ``early_ms`` and ``late_ms`` look at."""


def step_timing(arrivals: Sequence[float], started: float, ended: float) -> RunTiming:
    """Per-step time, start-up and wall time of one run; ``arrivals`` are the requests' arrival times.

    Per step is the mean gap between consecutive requests, so it leaves out start-up (before the first
    request) and shutdown (after the last): the client's work per model call. The early and late
    medians tell a cost paid on every step from one that grows with the conversation (a client that
    re-validates the whole history), which the mean over one length of conversation cannot.
    """
    if len(arrivals) < 2:
        raise ValueError(f"need at least two requests to time a step, got {len(arrivals)}")
    gaps = [(later - earlier) * 1000 for earlier, later in pairwise(arrivals)]
    return RunTiming(
        ms_per_step=(arrivals[-1] - arrivals[0]) / (len(arrivals) - 1) * 1000,
        startup_s=arrivals[0] - started,
        wall_s=ended - started,
        early_ms=statistics.median(gaps[:EDGE_GAPS]),
        late_ms=statistics.median(gaps[-EDGE_GAPS:]),
    )


def summarize(runs: Sequence[RunTiming]) -> dict[str, Any]:
    """Medians (and the fastest step time) of a peer's runs, rounded for the report."""
    return {
        "ms_per_step": round(statistics.median(r.ms_per_step for r in runs), 3),
        "min_ms_per_step": round(min(r.ms_per_step for r in runs), 3),
        "early_ms_per_step": round(statistics.median(r.early_ms for r in runs), 3),
        "late_ms_per_step": round(statistics.median(r.late_ms for r in runs), 3),
        "startup_s": round(statistics.median(r.startup_s for r in runs), 4),
        "wall_s": round(statistics.median(r.wall_s for r in runs), 4),
        "runs": [{key: round(value, 4) for key, value in asdict(r).items()} for r in runs],
    }


def add_ratios(rows: dict[str, dict[str, Any]], baseline: str) -> None:
    """Add ``ratio_to_openai`` (ms per step) and ``startup_ratio_to_openai`` to every measured row.

    Rows without numbers (not set up, failed) and a missing baseline are left alone: a ratio is only
    written when both sides were measured in this run.
    """
    base = rows.get(baseline, {})
    if "ms_per_step" not in base:
        return
    for row in rows.values():
        if "ms_per_step" in row:
            row["ratio_to_openai"] = round(row["ms_per_step"] / base["ms_per_step"], 2)
        if "startup_s" in row and "startup_s" in base:
            row["startup_ratio_to_openai"] = round(row["startup_s"] / base["startup_s"], 2)


def paired_ratio(runs: Sequence[RunTiming], baseline_runs: Sequence[RunTiming]) -> float | None:
    """Median over rounds of (this peer's ms per step / the baseline's in the same round).

    Both ran within seconds of each other, so a slow spell of this noisy machine hits both sides of
    each ratio; ``None`` when the two lists do not pair up round by round.
    """
    if not runs or len(runs) != len(baseline_runs):
        return None
    return round(statistics.median(r.ms_per_step / b.ms_per_step for r, b in zip(runs, baseline_runs, strict=True)), 2)


def last_json_line(stdout: str) -> dict[str, Any] | None:
    """The last line of ``stdout`` that is a JSON object (drivers print theirs last; frameworks may log before)."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def check_result(peer: Peer, stdout: str, steps: int) -> str | None:
    """Why the run's output shows the task was not done as scripted, or ``None`` when it was."""
    if peer.driver is None:  # chrysalis --json: the "final" event
        finals = [e for e in map(_json_or_none, stdout.splitlines()) if e and e.get("type") == "final"]
        tool_results = sum(1 for e in map(_json_or_none, stdout.splitlines()) if e and e.get("type") == "tool_result")
        if not finals:
            return "no final event in chrysalis --json output"
        answer, calls = str(finals[-1].get("output")), tool_results
    else:
        result = last_json_line(stdout)
        if result is None:
            return "the driver printed no JSON result line"
        answer, calls = str(result.get("answer")), int(result.get("tool_calls", -1))
    if FINAL_ANSWER not in answer:
        return f"unexpected answer {answer[:200]!r}"
    if calls != steps:
        return f"{calls} tool calls ran, {steps} were scripted"
    return None


def _json_or_none(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


# ---------------------------------------------------------------- whole process, side by side


def chrysalis_at(ref: str, into: Path) -> Peer:
    """A chrysalis row for commit ``ref``, checked out (``git worktree``) under ``into``: before/after in one run."""
    checkout = into / "chrysalis-before"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "-f", str(checkout), ref], cwd=BENCH, check=True, capture_output=True
    )
    commit = subprocess.run(["git", "rev-parse", "--short", ref], cwd=BENCH, capture_output=True, text=True)
    return Peer(
        f"chrysalis@{commit.stdout.strip() or ref}",
        f"chrysalis run at {ref} (same CLI and flags, the same venv's packages)",
        "built-in read_file (policy, guards, events, traces)",
        ("chrysalis-forge", "pydantic-ai-slim", "openai"),
        "read_file",
        "text",
        source=checkout / "src",
    )


def peer_python(peer: Peer) -> Path:
    """The interpreter a peer runs in: its own venv's, or this one (the main ``.venv``) for chrysalis."""
    return Path(sys.executable) if peer.driver is None else VENVS / peer.key / "bin" / "python"


def is_set_up(peer: Peer) -> bool:
    """Whether the peer can run: chrysalis's CLI beside this interpreter, or the peer's venv and driver."""
    if peer.driver is None:
        return Path(sys.executable).with_name("chrysalis").exists()
    return peer_python(peer).exists() and (PEERS_DIR / peer.driver).exists()


def peer_command(peer: Peer, base_url: str, workspace: Path, steps: int) -> list[str]:
    """The whole process to time: the peer's driver in its venv, or ``chrysalis run`` as a user types it."""
    if peer.driver is None:
        chrysalis = [str(Path(sys.executable).with_name("chrysalis"))]
        if peer.source is not None:  # that commit's package, through its own ``python -m chrysalis``
            chrysalis = [sys.executable, "-m", "chrysalis"]
        return [
            *chrysalis,
            "run",
            CHRYSALIS_TASK,
            "--base-url",
            base_url,
            "--model",
            "bench",
            "--json",
            "--level",
            "0",
            "--workspace",
            str(workspace),
            "--max-steps",
            str(steps + 5),
        ]
    driver = str(PEERS_DIR / peer.driver)
    return [
        str(peer_python(peer)),
        driver,
        "--base-url",
        base_url,
        "--workspace",
        str(workspace),
        "--steps",
        str(steps),
    ]


def peer_env(scratch: Path, source: Path | None = None) -> dict[str, str]:
    """The environment every process gets: homes in ``scratch``, nothing that could reach the network.

    ``PYTHONPATH``/``PYTHONHOME`` are dropped so a peer's venv imports only its own packages; a chrysalis
    at another commit gets that commit's ``src`` first on its path instead.
    """
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    if source is not None:
        env["PYTHONPATH"] = str(source)
    env.update(
        CHRYSALIS_HOME=str(scratch / "chrysalis-home"),
        MSWEA_GLOBAL_CONFIG_DIR=str(scratch / "mswea"),
        MSWEA_SILENT_STARTUP="1",
        MSWEA_COST_TRACKING="ignore_errors",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        HF_HUB_OFFLINE="1",
        OPENAI_API_KEY="none",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    return env


def run_peer_once(peer: Peer, steps: int, timeout: float) -> RunTiming:
    """One whole-process run on a fresh server and workspace; raises ``RuntimeError`` saying what went wrong."""
    with tempfile.TemporaryDirectory(prefix="overhead-") as tmp:
        scratch = Path(tmp)
        workspace = scratch / "workspace"
        workspace.mkdir()
        (workspace / LOG_NAME).write_text(make_log(steps))
        script = peer_script(peer.tool_kind, peer.finish, steps)
        with ScriptedOpenAIServer(script, max_seconds=timeout + 30) as server:
            command = peer_command(peer, server.base_url, workspace, steps)
            started = time.perf_counter()
            try:
                proc = subprocess.run(
                    command,
                    env=peer_env(scratch, peer.source),
                    cwd=workspace,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired as exc:
                raise RuntimeError(f"timed out after {timeout:.0f} s") from exc
            ended = time.perf_counter()
            arrivals = list(server.request_times)
            requests = len(server.requests)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"exit {proc.returncode}: {' | '.join(tail)[:400]}")
    if requests != steps + 1:
        raise RuntimeError(f"{requests} requests reached the server, {steps + 1} were scripted")
    problem = check_result(peer, proc.stdout, steps)
    if problem:
        raise RuntimeError(problem)
    return step_timing(arrivals, started, ended)


def peer_versions(peer: Peer) -> dict[str, str]:
    """Installed versions of the peer's packages, read inside its own interpreter."""
    code = (
        "import json, sys\nfrom importlib.metadata import version, PackageNotFoundError\n"
        "def v(n):\n    try:\n        return version(n)\n    except PackageNotFoundError:\n        return 'missing'\n"
        "print(json.dumps({n: v(n) for n in sys.argv[1:]}))"
    )
    if peer.driver is None:
        return {name: _version_here(name) for name in peer.packages}
    out = subprocess.run([str(peer_python(peer)), "-c", code, *peer.packages], capture_output=True, text=True)
    return cast(dict[str, str], json.loads(out.stdout)) if out.returncode == 0 else {}


def _version_here(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def run_rounds(
    ready: Sequence[Peer], steps: int, runs: int, timeout: float
) -> tuple[dict[str, list[RunTiming]], dict[str, str]]:
    """A warm-up round, then ``runs`` rounds of every peer, each round in a rotated order.

    Returns each peer's measured runs in round order and, for a peer that failed, why (it is not run
    again: one broken peer must not stop the others being measured).
    """
    timings: dict[str, list[RunTiming]] = {peer.key: [] for peer in ready}
    failures: dict[str, str] = {}
    for round_no in range(runs + 1):  # round 0 is the warm-up
        shift = round_no % max(1, len(ready))
        for peer in [*ready[shift:], *ready[:shift]]:
            if peer.key in failures:
                continue
            try:
                timing = run_peer_once(peer, steps, timeout)
            except RuntimeError as exc:
                failures[peer.key] = str(exc)
                print(f"  {peer.key}: failed: {exc}", file=sys.stderr)
                continue
            label = "warm-up" if round_no == 0 else f"run {round_no}/{runs}"
            print(
                f"  {label:>9} {peer.key:<12} {timing.ms_per_step:8.2f} ms/step  start-up {timing.startup_s:6.3f} s"
                f"  wall {timing.wall_s:6.2f} s",
                file=sys.stderr,
                flush=True,
            )
            if round_no > 0:
                timings[peer.key].append(timing)
    return timings, failures


def source_state() -> dict[str, Any]:
    """The commit chrysalis was measured at, and whether ``src/`` had uncommitted changes (others edit it too)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=BENCH, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--", "../src")
    return {
        "commit": git("rev-parse", "--short", "HEAD"),
        "src_uncommitted_changes": None if status is None else bool(status),
    }


def whole_process(peers: Sequence[Peer], steps: int, runs: int, timeout: float) -> dict[str, dict[str, Any]]:
    """The side-by-side table: every set-up peer measured in the same rounds; the others say why they are missing."""
    rows: dict[str, dict[str, Any]] = {}
    ready: list[Peer] = []
    for peer in peers:
        rows[peer.key] = {"label": peer.label, "tool": peer.tool}
        if is_set_up(peer):
            rows[peer.key]["versions"] = peer_versions(peer)
            ready.append(peer)
        else:
            rows[peer.key]["status"] = SETUP_HINT
    timings, failures = run_rounds(ready, steps, runs, timeout)
    measured = {key: runs_ for key, runs_ in timings.items() if key not in failures}
    for key, problem in failures.items():
        rows[key]["status"] = f"failed: {problem}"
    for key, runs_ in measured.items():
        rows[key].update(status="ok", **summarize(runs_))
    add_ratios(rows, BASELINE)
    for key, runs_ in measured.items():
        ratio = paired_ratio(runs_, measured.get(BASELINE, []))
        if ratio is not None:
            rows[key]["paired_ratio_to_openai"] = ratio
    return rows


def targets(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Issue 11's goals for chrysalis, and whether this run met them (``None`` when not measured)."""
    ours = rows.get("chrysalis", {})
    ratio = ours.get("ratio_to_openai")
    startup = ours.get("startup_s")
    return {
        "ms_per_step_ratio_to_openai": f"<= {STEP_TARGET_RATIO} (<= {STEP_TARGET_RATIO_IF_CLIENT_IS_FLOOR} if the "
        "client library is the floor)",
        "startup_s": f"< {STARTUP_TARGET_S}",
        "ratio_measured": ratio,
        "ratio_met": None if ratio is None else ratio <= STEP_TARGET_RATIO,
        "ratio_met_if_client_is_floor": None if ratio is None else ratio <= STEP_TARGET_RATIO_IF_CLIENT_IS_FLOOR,
        "startup_measured_s": startup,
        "startup_met": None if startup is None else startup < STARTUP_TARGET_S,
    }


def print_whole_process(rows: dict[str, dict[str, Any]], steps: int, runs: int) -> None:
    print(
        f"\nWhole process, side by side: {steps} tool steps + 1, median of {runs} runs after 1 warm-up, "
        "times from the server's request arrivals"
    )
    print(
        f"{'peer':<48} {'tool step':<52} {'ms/step':>8} {'min':>7} {'× openai':>9} {'paired':>7} {'early':>6} "
        f"{'late':>6} {'start-up s':>11} {'× openai':>9} {'wall s':>7}"
    )
    nan = float("nan")
    for row in rows.values():
        if row.get("status") != "ok":
            print(f"{row['label']:<48} {row['tool']:<52} {row['status']}")
            continue
        ratio, paired = row.get("ratio_to_openai", nan), row.get("paired_ratio_to_openai", nan)
        start_ratio = row.get("startup_ratio_to_openai", nan)
        print(
            f"{row['label']:<48} {row['tool']:<52} {row['ms_per_step']:>8.2f} {row['min_ms_per_step']:>7.2f} "
            f"{ratio:>8.2f}x {paired:>6.2f}x {row['early_ms_per_step']:>6.1f} {row['late_ms_per_step']:>6.1f} "
            f"{row['startup_s']:>11.3f} {start_ratio:>8.2f}x "
            f"{row['wall_s']:>7.2f}"
        )
    print(
        "× openai: ratio of the medians; paired: median over rounds of the ratio within a round; "
        f"early/late: median ms of the first/last {EDGE_GAPS} steps"
    )


# ---------------------------------------------------------------- in process (profiling chrysalis's layers)

SYSTEM = "You are a coding agent. Use the tools to inspect the repository, then answer."
TASK = "Read every chunk of the log and tell me what failed."
TOOL_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_chunk",
        "description": "Read one chunk of the log.",
        "parameters": {"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]},
    },
}


def read_chunk(i: int) -> str:
    """Read one chunk of the log."""
    return f"chunk {i}: " + "ok " * 60


def native_script(steps: int) -> list[ScriptedReply | str]:
    return [ScriptedReply.tool_call("read_chunk", {"i": i}) for i in range(steps)] + [FINAL_ANSWER]


def text_script(steps: int) -> list[ScriptedReply | str]:
    calls = [json.dumps({"tool_to_use": "read_chunk", "parameters": {"i": i}}) for i in range(steps)]
    return [*calls, json.dumps({"final_answer": FINAL_ANSWER})]


async def run_raw_openai(url: str, steps: int) -> None:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(base_url=url, api_key="none", max_retries=0) as client:
        messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
        for _ in range(steps + 1):
            response = await client.chat.completions.create(
                model="bench", messages=messages, tools=[cast(Any, TOOL_SPEC)]
            )
            message = response.choices[0].message
            if not message.tool_calls:
                return
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                args = json.loads(call.function.arguments)  # type: ignore[union-attr]
                messages.append({"role": "tool", "tool_call_id": call.id, "content": read_chunk(**args)})


async def run_plain_httpx(url: str, steps: int) -> None:
    async with httpx.AsyncClient() as client:
        messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
        for _ in range(steps + 1):
            body = {"model": "bench", "messages": messages, "tools": [TOOL_SPEC]}
            message = (await client.post(url + "/chat/completions", json=body)).json()["choices"][0]["message"]
            if not message.get("tool_calls"):
                return
            messages.append(message)
            for call in message["tool_calls"]:
                content = read_chunk(**json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})


async def run_pydantic_ai(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.usage import UsageLimits

    from chrysalis.config import Settings
    from chrysalis.llm.providers import build_model

    agent = Agent(build_model(Settings(model="bench", base_url=url)), instructions=SYSTEM, tools=[read_chunk])
    async with agent:
        result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == FINAL_ANSWER, result.output


async def run_stock_pydantic_ai(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    model = OpenAIChatModel("bench", provider=OpenAIProvider(base_url=url, api_key="none"))
    agent = Agent(model, instructions=SYSTEM, tools=[read_chunk])
    async with agent:
        result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == FINAL_ANSWER, result.output


async def run_text_protocol(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.usage import UsageLimits

    from chrysalis.llm.openai_compat import OpenAICompatBackend
    from chrysalis.llm.text_protocol import TextToolModel

    model = TextToolModel(OpenAICompatBackend("bench", url))
    agent = Agent(model, instructions=SYSTEM, tools=[read_chunk])
    result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == FINAL_ANSWER, result.output


async def run_session(url: str, steps: int) -> None:
    """The whole chrysalis run: gated tools (policy, guards), streaming, events, traces and evals in SQLite."""
    from chrysalis.agent.session import AgentSession
    from chrysalis.config import load_settings
    from chrysalis.tools.base import ToolArgs, ToolContext, ToolResult, ToolSpec

    class ReadChunkArgs(ToolArgs):
        i: int

    def run_read_chunk(args: ReadChunkArgs, _ctx: ToolContext) -> ToolResult:
        return ToolResult.success(read_chunk(args.i))

    spec = ToolSpec(
        name="read_chunk",
        description="Read one chunk of the log.",
        args=ReadChunkArgs,
        effect="read",
        level=0,
        run=run_read_chunk,
    )
    previous = os.environ.get("CHRYSALIS_HOME")
    with tempfile.TemporaryDirectory() as home:
        os.environ["CHRYSALIS_HOME"] = home
        settings = load_settings({"workspace": home, "model": "bench", "base_url": url, "max_steps": steps + 5})
        session = AgentSession(settings, tools={"read_chunk": spec})
        try:
            result = await session.run(TASK)
        finally:
            session.close()
            if previous is None:
                del os.environ["CHRYSALIS_HOME"]
            else:
                os.environ["CHRYSALIS_HOME"] = previous
    assert result.output == FINAL_ANSWER, result.output


Runner = Callable[[str, int], Coroutine[Any, Any, None]]
IN_PROCESS: dict[str, tuple[Runner, Callable[[int], list[ScriptedReply | str]]]] = {
    "plain httpx + json": (run_plain_httpx, native_script),
    "openai client (raw)": (run_raw_openai, native_script),
    "pydantic-ai Agent + stock OpenAIChatModel": (run_stock_pydantic_ai, native_script),
    "chrysalis: pydantic-ai Agent + build_model(base_url)": (run_pydantic_ai, native_script),
    "chrysalis: TextToolModel + OpenAICompatBackend": (run_text_protocol, text_script),
    "chrysalis: whole AgentSession run (native tools)": (run_session, native_script),
}
IN_PROCESS_BASELINE = "openai client (raw)"


def measure_in_process(runner: Runner, script: list[ScriptedReply | str], steps: int) -> float:
    """Ms per step of one in-process conversation on a fresh server, from the server's arrival times."""
    with ScriptedOpenAIServer(script, max_seconds=120) as server:
        started = time.perf_counter()
        asyncio.run(runner(server.base_url, steps))
        ended = time.perf_counter()
        assert len(server.requests) == steps + 1, len(server.requests)
        return step_timing(server.request_times, started, ended).ms_per_step


def in_process(steps: int, runs: int) -> dict[str, dict[str, Any]]:
    """Each layer in this interpreter: a warm-up (imports, first connections), then ``runs`` conversations."""
    rows: dict[str, dict[str, Any]] = {}
    for name, (runner, make_script) in IN_PROCESS.items():
        try:
            measure_in_process(runner, make_script(steps), steps)
            times = [measure_in_process(runner, make_script(steps), steps) for _ in range(runs)]
        except Exception as exc:  # chrysalis's internals move while others work on them: report, go on
            rows[name] = {"status": f"failed: {type(exc).__name__}: {exc}"[:400]}
            print(f"  in process {name}: {rows[name]['status']}", file=sys.stderr)
            continue
        rows[name] = {"ms_per_step": round(statistics.median(times), 3), "min_ms_per_step": round(min(times), 3)}
    baseline = rows[IN_PROCESS_BASELINE].get("ms_per_step")
    for row in rows.values():
        if baseline and "ms_per_step" in row:
            row["ratio_to_openai"] = round(row["ms_per_step"] / baseline, 2)
    return rows


def print_in_process(rows: dict[str, dict[str, Any]]) -> None:
    print("\nIn process, for profiling chrysalis's layers (main .venv, not comparable with the table above)")
    print(f"{'client':<55} {'ms/step':>9} {'min':>8} {'vs openai':>10}")
    for name, row in rows.items():
        if "ms_per_step" not in row:
            print(f"{name:<55} {row['status']}")
            continue
        ratio = row.get("ratio_to_openai", float("nan"))
        print(f"{name:<55} {row['ms_per_step']:>9.2f} {row['min_ms_per_step']:>8.2f} {ratio:>9.2f}x")


# ---------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="tool calls per conversation (default 50)")
    parser.add_argument("--runs", type=int, default=5, help="measured runs per peer after one warm-up (default 5)")
    parser.add_argument(
        "--peers",
        default=",".join(p.key for p in PEERS),
        help="comma-separated subset of: " + ", ".join(p.key for p in PEERS),
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one whole-process run may take")
    parser.add_argument("--no-in-process", action="store_true", help="skip the in-process profiling table")
    parser.add_argument(
        "--before", metavar="REF", help="also measure chrysalis at commit REF in the same rounds (before/after)"
    )
    args = parser.parse_args()
    if args.steps < 1 or args.runs < 1:
        parser.error("--steps and --runs must be at least 1")
    known = {p.key: p for p in PEERS}
    wanted = [name.strip() for name in args.peers.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")

    chosen = [known[name] for name in wanted]
    with tempfile.TemporaryDirectory(prefix="overhead-before-") as before_dir:
        if args.before:
            chosen.append(chrysalis_at(args.before, Path(before_dir)))
        rows = whole_process(chosen, args.steps, args.runs, args.timeout)
    if args.before:  # its checkout is gone with the temporary folder: forget it
        subprocess.run(["git", "worktree", "prune"], cwd=BENCH, check=False)
    print_whole_process(rows, args.steps, args.runs)
    goal = targets(rows)
    if goal["ratio_measured"] is not None:
        print(
            f"chrysalis: {goal['ratio_measured']}x the raw openai client per step (target "
            f"{goal['ms_per_step_ratio_to_openai']}); start-up {goal['startup_measured_s']} s "
            f"(target {goal['startup_s']} s)"
        )

    report: dict[str, Any] = {
        "benchmark": "overhead",
        "steps": args.steps,
        "requests_per_run": args.steps + 1,
        "runs": args.runs,
        "warmup_runs": 1,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "started_at": started_at,
        "chrysalis_source": source_state(),
        "provenance": provenance(),
        "whole_process": {
            "baseline": BASELINE,
            "statistic": "median over runs; ms_per_step = (last - first request arrival) / (requests - 1); "
            "startup_s = process start -> first request arrival; wall_s = process start -> exit",
            "targets": goal,
            "peers": rows,
        },
    }
    if not args.no_in_process:
        inproc = in_process(args.steps, args.runs)
        print_in_process(inproc)
        report["in_process"] = {
            "statistic": "median over runs of (last - first request arrival) / (requests - 1), after a warm-up",
            "baseline": IN_PROCESS_BASELINE,
            "results": inproc,
        }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
