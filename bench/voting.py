"""The voting hot path in µs per sample, beside the cost of one agent step (issue 13: under 1 ms per sample).

A scripted sampler (answers from a list, no model) goes through ``chrysalis.vote`` with red flags and
normalisation, at each of seed 001's levels, sequentially (n = 1, the path long chains use) and with n
samples drawn concurrently (threads); ``vote_async`` with an async sampler. What is timed is the whole
vote (scheduling, flags, counting), divided by the samples it drew. Beside it, one step of the agent
loop on a scripted pydantic-ai ``FunctionModel`` (a ``read_file`` call and its result), measured in the
same run, so the ratio says how much cheaper a voted sample is than a step.

    python bench/voting.py [--votes 2000] [--steps 200]

Writes ``bench/results/voting.json``: ``rows`` (``path``, ``level``, ``n``, ``k``, ``votes``,
``samples_per_vote``, ``us_per_sample``, ``ratio_to_agent_step``), ``agent_step_us`` and the settings.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chrysalis.voting import VotingConfig, red_flags, vote, vote_async

RESULTS = Path(__file__).parent / "results" / "voting.json"
ANSWERS = ["move = [1, 0, 2]"] * 8 + ["move = [2, 0, 1]", "I am not sure, maybe move = [1, 0, 1]"]
"""80 % right, 10 % a rival answer, 10 % red-flagged: each vote draws a few samples, some discarded."""
FLAGS = red_flags.any_of(red_flags.too_long(60), red_flags.hedging(), red_flags.repetition())


def normalize(text: str) -> str:
    return text.strip()


def time_sync(level: str, votes: int) -> dict[str, Any]:
    config = VotingConfig.level(level)
    answers = itertools.cycle(ANSWERS)
    samples = 0
    started = time.perf_counter()
    for _ in range(votes):
        samples += vote(lambda _i: next(answers), config, normalize=normalize, red_flag=FLAGS).samples
    elapsed = time.perf_counter() - started
    path = "sequential (n=1)" if config.n == 1 else f"threads (n={config.n})"
    return _row(path, level, config, votes, samples, elapsed)


def time_async(level: str, votes: int) -> dict[str, Any]:
    config = VotingConfig.level(level)
    answers = itertools.cycle(ANSWERS)

    async def sample(_i: int) -> str:
        return next(answers)

    async def run() -> int:
        total = 0
        for _ in range(votes):
            total += (await vote_async(sample, config, normalize=normalize, red_flag=FLAGS)).samples
        return total

    started = time.perf_counter()
    samples = asyncio.run(run())
    elapsed = time.perf_counter() - started
    return _row(f"async (n={config.n})", level, config, votes, samples, elapsed)


def _row(path: str, level: str, config: VotingConfig, votes: int, samples: int, elapsed: float) -> dict[str, Any]:
    per_sample = round(elapsed / samples * 1e6, 2)
    return {
        "path": path,
        "level": level,
        "n": config.n,
        "k": config.k,
        "votes": votes,
        "samples_per_vote": round(samples / votes, 3),
        "us_per_sample": per_sample,
    }


def agent_step_us(steps: int) -> float:
    """One agent step (a model reply with one read_file call, the call, the next request), in µs."""
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from chrysalis.agent.session import AgentSession
    from chrysalis.config import load_settings

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        replies = sum(isinstance(m, ModelResponse) for m in messages)
        if replies >= steps:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("read_file", {"path": f"f{replies}.txt"})])

    with tempfile.TemporaryDirectory() as tmp:
        workspace, home = Path(tmp) / "ws", Path(tmp) / "home"
        workspace.mkdir()
        for i in range(steps):  # a new file each step: the repeated-call guard would stop the same call
            (workspace / f"f{i}.txt").write_text(f"line {i}\n")
        settings = dataclasses.replace(
            load_settings({"workspace": workspace, "level": 0, "max_steps": steps + 5}), home=home
        )
        session = AgentSession(settings, model=FunctionModel(respond), tools=None)
        started = time.perf_counter()
        asyncio.run(session.run("read the files"))
        elapsed = time.perf_counter() - started
        session.close()
    return elapsed / (steps + 1) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--votes", type=int, default=2000, help="votes per level and path")
    parser.add_argument("--steps", type=int, default=200, help="agent steps for the comparison")
    args = parser.parse_args(argv)
    agent_step_us(10)  # warm-up: imports, first-call caches
    step = agent_step_us(args.steps)
    rows = [time_sync(level, args.votes) for level in ("none", "medium", "high", "critical")]
    rows += [time_async(level, args.votes) for level in ("none", "high")]
    for row in rows:
        row["ratio_to_agent_step"] = round(row["us_per_sample"] / step, 4)
    print(f"one agent step: {step:,.0f} µs")
    print(f"{'path':<18} {'level':<8} {'n':>2} {'k':>2} {'smp/vote':>8} {'µs/sample':>10} {'÷ step':>8}")
    for r in rows:
        print(
            f"{r['path']:<18} {r['level']:<8} {r['n']:>2} {r['k']:>2} {r['samples_per_vote']:>8} "
            f"{r['us_per_sample']:>10,.1f} {r['ratio_to_agent_step']:>8.4f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "benchmark": "voting",
                "agent_step_us": round(step, 1),
                "votes_per_row": args.votes,
                "agent_steps": args.steps,
                "answers": "80% right, 10% a rival, 10% red-flagged",
                "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "python": sys.version.split()[0],
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
