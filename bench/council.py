"""The cost of the council's turn-taking: gate every persona, arbitrate, record the round, per message.

Seed 003 (section 8.1) sets latency targets for its router: gate evaluation under 5 ms, arbitration
under 10 ms, total routing under 50 ms. This measures ours on ``--messages`` synthetic messages
(default 10,000): each arrives as a turn of the discussion (words drawn from a seeded vocabulary, some
naming a persona as ``@lea`` or ``Lea,``, some holding trigger or repair words), then

- **gate**: ``Gate`` for each built-in persona (4), reading back its window of the growing history;
- **arbitration**: ``Arbiter.select`` on their bids (``max_speakers`` 2, no turn budget);
- **record**: the round's records as the council keeps them: each persona's gate answer and the
  arbiter's pick, each fingerprinted (SHA-384), chained and signed (Ed25519) by ``Recorder``, which
  is what ``chrysalis council`` does before writing them to the database (the write is not timed);
- **routing**: the three together, timed around the whole.

The winners' turns are drawn from the same vocabulary (a model would write them). Times are per message,
p50, p99 and max in milliseconds, with each target and the p99's share of it: wall-clock time (what the
targets mean) and this thread's CPU time (``time.thread_time_ns``), which leaves out the time the process
waited for a core. The two differ when the machine is busy: the provenance records its load average.

    python bench/council.py [--messages 10000] [--seed 3]

Writes bench/results/council.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from chrysalis.council import Arbiter, Gate, Turn, builtin_personas
from chrysalis.council.records import Recorder
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "council.json"
TARGETS_MS = {"gate": 5.0, "arbitration": 10.0, "record": None, "routing": 50.0}
"""Seed 003's latency budget (section 8.1); recording has none of its own there."""
WORDS = (
    "the parser cache should keep its keys small and we can measure the hit rate before we ship "
    "a second layer if the tests show the cost is worth it and the interface stays the same for callers"
).split()
SPICE = ("@lea", "Lea,", "David", "design", "docs", "odds", "obviously", "always", "never", "100%", "wrong", "unclear")


def message(rng: random.Random) -> str:
    """A 20-to-40-word message; about one in three holds a name, a trigger or a repair word."""
    words = [rng.choice(WORDS) for _ in range(rng.randint(20, 40))]
    if rng.random() < 0.35:
        words.insert(rng.randrange(len(words)), rng.choice(SPICE))
    return " ".join(words)


def percentiles(times_ns: list[int], target: float | None) -> dict[str, Any]:
    """p50, p99, mean and max in milliseconds, and the p99 as a share of ``target``."""
    ms = sorted(t / 1e6 for t in times_ns)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    row: dict[str, Any] = {
        "p50_ms": round(statistics.median(ms), 4),
        "p99_ms": round(p99, 4),
        "mean_ms": round(statistics.fmean(ms), 4),
        "max_ms": round(ms[-1], 4),
        "target_ms": target,
    }
    if target is not None:
        row["p99_share_of_target"] = round(p99 / target, 5)
    return row


def measure(messages: int, seed: int) -> dict[str, Any]:
    """Route ``messages`` synthetic messages through the gate and the arbiter; the times of each stage."""
    rng = random.Random(seed)
    personas = builtin_personas()
    gate, arbiter = Gate(), Arbiter(max_speakers=2)
    history: list[Turn] = []
    recorder = Recorder("bench", Ed25519PrivateKey.generate())
    wall: dict[str, list[int]] = {stage: [] for stage in TARGETS_MS}
    cpu: dict[str, list[int]] = {stage: [] for stage in TARGETS_MS}
    spoken = 0
    for round_ in range(messages):
        history.append(Turn("user", message(rng), round_))
        replies = [message(rng) for _ in range(2)]  # the model's turns, drawn before the clock starts
        marks = [_now()]
        cands = gate.candidates(personas, topic="Add a cache to the parser.", history=history, round=round_)
        marks.append(_now())
        selection = arbiter.select(cands)
        marks.append(_now())
        for bid in cands:
            answer = {"should_speak": bid.should_speak, "confidence": bid.confidence}
            recorder.append("council_gate", bid.persona, answer)
        picked = {"round": round_, "winners": list(selection.winners), "scores": dict(selection.scores)}
        recorder.append("council_arbiter", None, picked)
        history.extend(Turn(name, text, round_) for name, text in zip(selection.winners, replies, strict=False))
        marks.append(_now())
        for clock, times in enumerate((wall, cpu)):
            for stage, (start, end) in zip(TARGETS_MS, ((0, 1), (1, 2), (2, 3), (0, 3)), strict=True):
                times[stage].append(marks[end][clock] - marks[start][clock])
        spoken += len(selection.winners)
    return {
        "messages": messages,
        "personas": len(personas),
        "turns_spoken": spoken,
        "stages": {stage: percentiles(wall[stage], target) for stage, target in TARGETS_MS.items()},
        "cpu": {stage: percentiles(cpu[stage], target) for stage, target in TARGETS_MS.items()},
    }


def _now() -> tuple[int, int]:
    """The wall clock and this thread's CPU clock, in nanoseconds."""
    return time.perf_counter_ns(), time.thread_time_ns()


def main() -> None:
    """Parse the flags, measure, print the table and save the results."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--messages", type=int, default=10_000)
    args.add_argument("--seed", type=int, default=3)
    flags = args.parse_args()
    report = measure(flags.messages, flags.seed)
    print(f"{report['messages']} messages, {report['personas']} personas, {report['turns_spoken']} turns spoken")
    print(f"{'stage':<12} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'cpu p50':>8} {'cpu p99':>8} {'target':>7}")
    for stage, row in report["stages"].items():
        own = report["cpu"][stage]
        target = "-" if row["target_ms"] is None else f"{row['target_ms']:g} ms"
        print(
            f"{stage:<12} {row['p50_ms']:>8.4f} {row['p99_ms']:>8.4f} {row['max_ms']:>8.4f} "
            f"{own['p50_ms']:>8.4f} {own['p99_ms']:>8.4f} {target:>7}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"provenance": provenance(), **report}, indent=2) + "\n")


if __name__ == "__main__":
    main()
