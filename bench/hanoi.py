"""Towers of Hanoi, one move per model call, with voting and red flags: a MAKER (arXiv 2511.09030) reproduction.

MAKER solved 20 disks (1,048,575 moves) with zero errors by asking for one move per call, given only
the current state and the previous move, in a strict format; by voting on each move with
first-to-ahead-by-k; and by discarding replies that are too long or break the format (red flags).
Its cost grows as s·ln s: k grows with ln s. This benchmark runs that loop through ``chrysalis.vote``.

Part (a), **simulated model**: a sampler that answers the right move with probability ``1 - p``, and
otherwise errs: a share ``--flaggable`` of its errors are malformed or rambling (red-flaggable), the
rest are legal-looking wrong moves (the other legal moves, at random; only voting can catch these).
Each step's vote really goes through ``vote()`` with the red flags, so this also measures our
machinery. For each disk count the table gives the k MAKER's formula asks for (task success >= 0.95),
the samples per step measured against the prediction for that k, the errors (any wrong move executed
ruins the run), and CPU time. MAKER's prediction: with per-sample correctness p' among counted
samples, a first-to-ahead-by-k vote takes about k / (2p' - 1) counted samples (the exact gambler's-ruin
duration is reported too), plus the red-flagged ones redrawn.

Part (b), **a real model** (``--model local:qwen2.5-coder-1.5b``): each move asked as a chain of
micro-questions, each voted (``hanoi_micro.py``: calibration of the per-question accuracy, then whole
games with k from MAKER's formula; ``bench/results/hanoi_micro_<size>.json``). With ``--one-call``,
one call per move as in part (a), the model's replies as samples (``hanoi_model_<model>.json``).

    python bench/hanoi.py [--disks 10-20] [--error-rate 0.01] [--flaggable 0.5] [--target 0.95] [--seed 1]

Writes ``bench/results/hanoi.json``: ``rows`` (per disk count: ``disks``, ``steps``, ``k``,
``samples_per_step``, ``predicted_samples_per_step``, ``exact_samples_per_step``, ``ratio_to_prediction``,
``flagged_per_step``, ``errors``, ``solved``, ``cpu_s``, ``us_per_sample``) and the settings.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from chrysalis.voting import VotingConfig, red_flags, vote
from chrysalis.voting.micro import maker_k, predicted_samples
from egress import provenance

RESULTS = Path(__file__).parent / "results" / "hanoi.json"
State = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""Three pegs, each a tuple of disks from the bottom up (disk 1 is the smallest)."""
Move = tuple[int, int, int]
"""(disk, from peg, to peg), MAKER's ``move = [disk, from, to]``."""
MAX_REPLY_CHARS = 60
"""The length cap: a reply longer than this is red-flagged (MAKER capped replies at ~750 tokens)."""
_MOVE = re.compile(r"^move = \[(\d+), ([012]), ([012])\]$")


# -- the domain ----------------------------------------------------------------------------------


def start_state(disks: int) -> State:
    return (tuple(range(disks, 0, -1)), (), ())


def apply(state: State, move: Move) -> State:
    """The state after ``move``; raises ValueError for an illegal move."""
    disk, src, dst = move
    pegs = [list(p) for p in state]
    if not pegs[src] or pegs[src][-1] != disk or (pegs[dst] and pegs[dst][-1] < disk):
        raise ValueError(f"illegal move {move} in {state}")
    pegs[dst].append(pegs[src].pop())
    return (tuple(pegs[0]), tuple(pegs[1]), tuple(pegs[2]))


def legal_moves(state: State) -> list[Move]:
    moves = []
    for src in range(3):
        if state[src]:
            disk = state[src][-1]
            moves += [(disk, src, dst) for dst in range(3) if dst != src and (not state[dst] or state[dst][-1] > disk)]
    return moves


def next_move(state: State, previous: Move | None, disks: int) -> Move:
    """The optimal move from ``state`` given only the previous move (MAKER's per-step rule).

    The smallest disk moves on every other step, always the same way round (0 -> 2 -> 1 for an odd
    number of disks, 0 -> 1 -> 2 for an even one); on the steps between, the one legal move that does
    not touch the smallest disk.
    """
    if previous is None or previous[0] != 1:
        src = next(i for i in range(3) if state[i] and state[i][-1] == 1)
        return (1, src, (src + (2 if disks % 2 else 1)) % 3)
    return next(m for m in legal_moves(state) if m[0] != 1)


def render_move(move: Move) -> str:
    return f"move = [{move[0]}, {move[1]}, {move[2]}]"


def parse_move(text: str) -> Move | None:
    """The move in a reply in the strict format ``move = [disk, from, to]``, or None."""
    found = _MOVE.match(text.strip())
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def step_prompt(state: State, previous: Move | None) -> str:
    """What a model sees for one step: the rules, the strategy worked through as steps, the state, the previous move.

    As in MAKER, the prompt gives the strategy; the model has to apply it to this state. Small models
    follow a checklist far better than a rule in prose, so the strategy is written as one.
    """
    disks = sum(len(peg) for peg in state)
    shift = 2 if disks % 2 else 1
    return (
        f"Towers of Hanoi, {disks} disks, from peg 0 to peg 2. Never put a disk on a smaller one.\n"
        f"Pegs (bottom to top): 0: {list(state[0])}, 1: {list(state[1])}, 2: {list(state[2])}\n"
        f"Previous move: {render_move(previous) if previous else 'none'}\n"
        "Decide the next move:\n"
        "A. If the previous move is none, or its disk is not 1: disk 1 moves from its peg P to peg "
        f"(P + {shift}) mod 3.\n"
        "B. If the previous move's disk is 1: disk 1 stays. Look at the two other pegs; move the smaller of their "
        "top disks onto the other one (an empty peg takes any disk).\n"
        "Reply with exactly one line: move = [disk, from, to]"
    )


HANOI_FLAGS = red_flags.any_of(red_flags.too_long(MAX_REPLY_CHARS), red_flags.bad_format(parse_move))
"""MAKER's red flags for this task: too long, or not the strict format."""


class StepSampler(Protocol):
    """What answers one step: ``sampler(state, previous)`` gives a ``sample(i)`` for voter ``i``."""

    def __call__(self, state: State, previous: Move | None) -> Callable[[int], str]: ...


# -- part (a): a simulated model -----------------------------------------------------------------


@dataclass
class SimulatedModel:
    """Right with probability ``1 - error_rate``; a share ``flaggable`` of its errors are red-flaggable."""

    disks: int
    error_rate: float
    flaggable: float
    rng: random.Random

    def __call__(self, state: State, previous: Move | None) -> Callable[[int], str]:
        right = next_move(state, previous, self.disks)
        wrong = [m for m in legal_moves(state) if m != right]
        rng, error_rate, flaggable = self.rng, self.error_rate, self.flaggable

        def sample(_i: int) -> str:
            if rng.random() >= error_rate:
                return render_move(right)
            if rng.random() < flaggable:  # a rambling or malformed reply: the red flags catch it
                return "I think the move is probably disk 1 to peg 2, but let me reconsider the state carefully."
            return render_move(rng.choice(wrong))

        return sample


@dataclass
class Outcome:
    steps: int
    samples: int
    flagged: int
    errors: int
    cpu_s: float


def solve(disks: int, sampler: StepSampler, config: VotingConfig, *, stop_at_error: bool = False) -> Outcome:
    """Play the whole game, one voted move per step; a wrong move executed counts as an error."""
    state, previous = start_state(disks), None
    samples = flagged = errors = 0
    steps = 2**disks - 1
    started = time.process_time()
    for _ in range(steps):
        result = vote(sampler(state, previous), config, normalize=parse_move, red_flag=HANOI_FLAGS)
        samples += result.samples
        flagged += sum(result.flagged.values())
        move = parse_move(result.winner)
        assert move is not None  # red flags keep malformed replies out of the count
        if move != next_move(state, previous, disks):
            errors += 1
            if stop_at_error:
                break
        try:
            state = apply(state, move)
        except ValueError:
            break
        previous = move
    solved = errors == 0 and state == ((), (), tuple(range(disks, 0, -1)))
    return Outcome(
        steps=steps,
        samples=samples,
        flagged=flagged,
        errors=errors if solved or errors else 1,
        cpu_s=time.process_time() - started,
    )


# -- part (b): a real model through the fast sampling path ---------------------------------------

MODEL_RESULTS = Path(__file__).parent / "results" / "hanoi_model.json"


MOVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "move": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 30},
            "minItems": 3,
            "maxItems": 3,
        }
    },
    "required": ["move"],
}
"""With ``--constrained``: decoding follows this schema, so every reply is a well-formed move (as JSON)."""


class _AsMoveLine:
    """A sampler whose JSON replies (``{"move": [d, f, t]}``) are turned into the strict line format."""

    def __init__(self, sampler: Any) -> None:
        self._sampler = sampler

    async def sample(self, messages: list[Any], i: int) -> Any:
        import dataclasses

        completion = await self._sampler.sample(messages, i)
        try:
            move = json.loads(completion.text)["move"]
            text = render_move((int(move[0]), int(move[1]), int(move[2])))
        except (ValueError, KeyError, TypeError, IndexError):
            text = completion.text
        return dataclasses.replace(completion, text=text)


def run_model(model: str, disk_counts: list[int], k: int, seed: int, *, constrained: bool = False) -> int:
    """Per disk count: greedy accuracy along the optimal path, then a whole game with voting (stops at an error)."""
    import asyncio

    from chrysalis.config import load_settings
    from chrysalis.llm.sampling import Sampler

    raw = Sampler.for_model(
        model, load_settings({}), max_tokens=24 if constrained else 16, json_schema=MOVE_SCHEMA if constrained else None
    )
    sampler: Any = _AsMoveLine(raw) if constrained else raw
    how = "decoding constrained to the move's JSON schema" if constrained else "free text"
    print(f"{model} ({how}): greedy accuracy per step, then a voted game (first-to-ahead-by-{k}, red flags)")
    print(
        f"{'disks':>5} {'steps':>6} {'greedy':>7} {'solved':>6} {'done':>6} {'smp/step':>8} {'s/step':>7} "
        f"{'tok/step':>8} {'cached':>7}"
    )
    rows = [asyncio.run(_model_row(sampler, disks, k)) for disks in disk_counts]
    seconds_per_step = sum(r["seconds"] for r in rows) / max(1, sum(r["steps_played"] for r in rows))
    within_hour = [r["disks"] for r in rows if r["solved"] and (2 ** r["disks"] - 1) * r["seconds_per_step"] <= 3600]
    MODEL_RESULTS.parent.mkdir(parents=True, exist_ok=True)
    out = MODEL_RESULTS.with_name(f"hanoi_model_{model.split(':')[-1]}{'_constrained' if constrained else ''}.json")
    out.write_text(
        json.dumps(
            {
                "benchmark": "hanoi",
                "part": "b (a real model)",
                "model": model,
                "k": k,
                "constrained": constrained,
                "largest_solved_within_an_hour": max(within_hour, default=None),
                "seconds_per_step_overall": round(seconds_per_step, 3),
                "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "provenance": provenance(),
                "python": sys.version.split()[0],
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")
    return 0


async def _model_row(sampler: Any, disks: int, k: int) -> dict[str, Any]:
    from chrysalis.llm.backend import ChatMessage
    from chrysalis.voting import VoteError, vote_async

    steps = 2**disks - 1

    def messages(state: State, previous: Move | None) -> list[ChatMessage]:
        return [ChatMessage("user", step_prompt(state, previous))]

    state, previous, right = start_state(disks), None, 0
    for _ in range(steps):  # greedy, one sample, along the optimal path (the oracle moves on)
        move = next_move(state, previous, disks)
        reply = await sampler.sample(messages(state, previous), 0)
        right += parse_move(reply.text) == move
        state, previous = apply(state, move), move
    state, previous = start_state(disks), None
    played = samples = tokens = cached = 0
    started = time.perf_counter()
    config = VotingConfig(n=1, k=k, max_samples=6 * k)
    solved = True
    for _ in range(steps):
        drawn: list[Any] = []
        voter = _recording_voter(sampler, messages(state, previous), drawn)
        try:
            result = await vote_async(voter, config, normalize=parse_move, red_flag=HANOI_FLAGS)
            voted = parse_move(result.winner)
        except VoteError:
            voted = None
        played += 1
        samples += len(drawn)
        tokens += sum(c.input_tokens - c.cached_tokens + c.output_tokens for c in drawn)
        cached += sum(c.cached_tokens for c in drawn)
        if voted is None or voted != next_move(state, previous, disks):
            solved = False
            break
        state, previous = apply(state, voted), voted
    seconds = time.perf_counter() - started
    row = {
        "disks": disks,
        "steps": steps,
        "greedy_accuracy": round(right / steps, 4),
        "solved": solved,
        "steps_played": played,
        "samples_per_step": round(samples / played, 3),
        "seconds": round(seconds, 1),
        "seconds_per_step": round(seconds / played, 3),
        "tokens_per_step": round(tokens / played, 1),
        "cached_tokens_per_step": round(cached / played, 1),
    }
    print(
        f"{disks:>5} {steps:>6} {row['greedy_accuracy']:>7.3f} {solved!s:>6} {played:>6} "
        f"{row['samples_per_step']:>8} {row['seconds_per_step']:>7} {row['tokens_per_step']:>8} "
        f"{row['cached_tokens_per_step']:>7}",
        flush=True,
    )
    return row


def _recording_voter(sampler: Any, messages: list[Any], drawn: list[Any]) -> Callable[[int], Any]:
    """The vote's sampler for one step; each completion is kept in ``drawn`` (for tokens and the cache)."""

    async def sample(i: int) -> str:
        completion = await sampler.sample(messages, i)
        drawn.append(completion)
        return str(completion.text)

    return sample


# -- MAKER's arithmetic --------------------------------------------------------------------------


k_min = maker_k
"""The smallest k with (1 / (1 + ((1-p)/p)^k))^steps >= target: the library's ``maker_k``."""


def exact_samples(k: int, p: float) -> float:
    """The expected duration of a first-to-ahead-by-k race (gambler's ruin between -k and +k, one rival)."""
    q = 1 - p
    r = q / p
    return k / (q - p) - (2 * k / (q - p)) * (1 - r**k) / (1 - r ** (2 * k))


# -- the benchmark -------------------------------------------------------------------------------


def run_simulated(
    disk_counts: list[int], error_rate: float, flaggable: float, target: float, seed: int
) -> list[dict[str, Any]]:
    counted_right = (1 - error_rate) / (1 - error_rate * flaggable)  # p' among samples that are counted
    flag_rate = error_rate * flaggable
    rows = []
    for disks in disk_counts:
        steps = 2**disks - 1
        k = k_min(steps, counted_right, target)
        model = SimulatedModel(disks, error_rate, flaggable, random.Random(seed + disks))
        outcome = solve(disks, model, VotingConfig(n=1, k=k, max_samples=50 * k))
        predicted = predicted_samples(k, counted_right) / (1 - flag_rate)  # drawn, red-flagged included
        exact = exact_samples(k, counted_right) / (1 - flag_rate)
        per_step = outcome.samples / outcome.steps
        rows.append(
            {
                "disks": disks,
                "steps": steps,
                "k": k,
                "samples_per_step": round(per_step, 4),
                "predicted_samples_per_step": round(predicted, 4),
                "exact_samples_per_step": round(exact, 4),
                "ratio_to_prediction": round(per_step / predicted, 4),
                "flagged_per_step": round(outcome.flagged / steps, 4),
                "errors": outcome.errors,
                "solved": outcome.errors == 0,
                "cpu_s": round(outcome.cpu_s, 2),
                "us_per_sample": round(outcome.cpu_s / outcome.samples * 1e6, 2),
            }
        )
        print_row(rows[-1])
    return rows


def print_row(row: dict[str, Any]) -> None:
    print(
        f"{row['disks']:>5} {row['steps']:>9} {row['k']:>2} {row['samples_per_step']:>8.3f} "
        f"{row['predicted_samples_per_step']:>9.3f} {row['ratio_to_prediction']:>6.3f} {row['errors']:>6} "
        f"{row['cpu_s'] / 60:>7.2f} {row['us_per_sample']:>7.2f}",
        flush=True,
    )


def disk_range(text: str) -> list[int]:
    """Disk counts: ``10``, a range ``10-20``, or a list of either, ``4,6,8-10``."""
    counts: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        counts.extend(range(int(low), int(high or low) + 1))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--disks", default="10-20", help="disk counts: 10, a range such as 10-20, or a list such as 4,6,8-10"
    )
    parser.add_argument("--error-rate", type=float, default=0.01, help="the simulated model's per-sample error rate")
    parser.add_argument("--flaggable", type=float, default=0.5, help="the share of its errors red flags can catch")
    parser.add_argument("--target", type=float, default=0.95, help="the task success probability k is chosen for")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", default=None, help="part (b): a real model, e.g. local:qwen2.5-coder-0.5b")
    parser.add_argument("--one-call", action="store_true", help="part (b): one call per move, not micro-questions")
    parser.add_argument("--k", type=int, default=2, help="part (b), --one-call: the vote's k (first-to-ahead-by-k)")
    parser.add_argument("--constrained", action="store_true", help="part (b), --one-call: decode under a JSON schema")
    parser.add_argument("--calibrate-disks", type=int, default=5, help="part (b): the game whose path calibrates p")
    parser.add_argument(
        "--calibration-k", type=int, default=10, help="part (b): the votes' k while calibrating (draws are free)"
    )
    args = parser.parse_args(argv)
    if args.model is not None and args.one_call:
        return run_model(args.model, disk_range(args.disks), args.k, args.seed, constrained=args.constrained)
    if args.model is not None:
        import hanoi_micro

        return hanoi_micro.run(
            args.model,
            disk_range(args.disks),
            calibrate_disks=args.calibrate_disks,
            calibration_k=args.calibration_k,
            target=args.target,
        )
    print(
        f"simulated model: error rate {args.error_rate:.2%}, {args.flaggable:.0%} of errors red-flaggable, "
        f"k for task success >= {args.target}"
    )
    print(
        f"{'disks':>5} {'steps':>9} {'k':>2} {'samples':>8} {'predicted':>9} {'ratio':>6} {'errors':>6} "
        f"{'cpu_min':>7} {'us/smp':>7}"
    )
    rows = run_simulated(disk_range(args.disks), args.error_rate, args.flaggable, args.target, args.seed)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "benchmark": "hanoi",
                "part": "a (simulated model)",
                "error_rate": args.error_rate,
                "flaggable": args.flaggable,
                "target_success": args.target,
                "seed": args.seed,
                "voting": "first-to-ahead-by-k, n=1, red flags: too long, bad format",
                "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "provenance": provenance(),
                "python": sys.version.split()[0],
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")
    return 0 if all(row["solved"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
