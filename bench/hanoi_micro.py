"""Towers of Hanoi on the embedded model, each move asked as a chain of micro-questions (issue 35, items 1-2).

One move per call is too big a step for the embedded models (greedy accuracy per move 0.03-0.33 on
1.5B, ``hanoi_model_*.json``), and voting cannot lift an accuracy below one half. So a move is asked
as a chain (``chrysalis.voting.micro``) of questions with tiny answer spaces. Each question is a few
lines of a Python REPL transcript, in completion form (no chat template): the answer is what its
last line prints, weighed with the newline as its end (``Sampler.answerer(completion=True)``). A code
model continues such transcripts far better than it answers chat questions about them.

The questions are lookups, never searches or tests. Probing the 1.5B model showed that it reads a
list's first element or a named variable reliably, but answers "which key holds 1?" or "is A's top
1?" with the first key or ``True`` whatever the data. So each question shows only what it needs (a
peg is listed from the top down, so its top disk is ``A[0]``), and a search is turned into a lookup
by naming variables after earlier answers (in words: ``where_is_disk_two``, not ``peg_with_top_2``,
which the model confused with ``peg_with_top_1``):

- ``previous_disk``: ``previous_move[0]`` (a number, or None before the first move);
- ``top_of_A``, ``top_of_B``, ``top_of_C``: ``first, *rest = A or [None]`` then ``first`` (asked as
  ``A[0] if A else None``, a list of nine disks drew the last one: 10 over 2);
- ``peg_of_disk_1``: ``where_is_disk_one``, after ``where_is_disk_<top> = "<peg>"`` (the top in words)
  for each answered top;
- if the previous move did not move disk 1: ``next_peg_of_disk_1``: disk 1 goes one step round its
  circle (A → C → B for an odd number of disks, A → B → C for an even one), ``disk_1_on_B_goes_to``
  after one such variable per peg;
- otherwise ``smaller_top``: ``min(top_x, top_y)`` of the two other pegs' tops (an empty peg's is
  ``float("inf")``): that disk moves onto the other peg. Half the voters are asked ``min(top_y,
  top_x)`` (``Question.variants``): the 1.5B model reads ``min(3, 10)`` as 10 and ``min(10, 3)`` as
  3, and voters asked one wording would share its error.

Code only routes: it picks the branch from the answer to ``previous_disk``, puts answers into later
questions, and reads the move off the answers; it never checks an answer's truth. The oracle below
knows the true answer to each question, and is used only to score.

1. **Calibration** (``--calibrate-disks``, default 5): along the optimal path of that game, every
   question is voted (first-to-ahead-by-``--calibration-k``) and the truth is fed forward, so each
   question is scored on a right state. Per question: the greedy answer (voter 0), every counted
   sample, and the vote's winner, each against the truth.
2. **Games**, for each disk count: k from the measured per-sample accuracy p by MAKER's formula
   (``maker_k``, all the game's questions right with probability ``--target``); the game is played
   with votes and no oracle, and stops at the first wrong move. Per game: questions, samples per
   question against k / (2p - 1), seconds per move, tokens; the prediction of seconds beside it.

Writes ``bench/results/hanoi_micro_<size>.json`` (e.g. ``hanoi_micro_1.5b.json``) with
``largest_solved`` (disks) beside the calibration and per-disk rows.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chrysalis.llm.backend import Completion
from chrysalis.voting import VotingConfig
from chrysalis.voting.micro import Answerer, MicroChain, Question, Step, ask, maker_k, predicted_samples
from egress import provenance
from hanoi import Move, State, apply, next_move, start_state

PEGS = ("A", "B", "C")
EMPTY = "None"
INFINITE = "inf"
HOUR = 3600.0
HEADER = ">>> # Towers of Hanoi; disk 1 is the smallest; each peg lists its disks from the top down"
"""The line every question starts with: the shared prefix the KV cache keeps."""


# -- the chain -----------------------------------------------------------------------------------


def _repl(*lines: str) -> str:
    return "\n".join(f">>> {line}" for line in lines)


def cycle_of(disks: int) -> tuple[tuple[str, str], ...]:
    """Where disk 1 goes from each peg: round A → C → B for an odd number of disks, A → B → C for an even one."""
    return (("A", "C"), ("C", "B"), ("B", "A")) if disks % 2 else (("A", "B"), ("B", "C"), ("C", "A"))


NUMBER_WORDS = {
    str(n): word
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
"""Variables are named with words, not digits: ``where_is_disk_one`` and ``where_is_disk_two`` differ in a
whole token the model tells apart, ``peg_with_top_1`` and ``peg_with_top_2`` in one digit it confused."""


def _word(top: str) -> str:
    return NUMBER_WORDS[top]


def _value(top: str) -> str:
    """A top as a Python value in ``min(...)``: an empty peg (None) counts as infinitely large."""
    return 'float("inf")' if top == EMPTY else top


def move_chain(state: State, previous: Move | None) -> MicroChain[Move]:
    """One move as micro-questions (see the module's docstring)."""
    disks = sum(len(peg) for peg in state)
    numbers = tuple(str(d) for d in range(1, disks + 1))
    last = f'({previous[0]}, "{PEGS[previous[1]]}", "{PEGS[previous[2]]}")' if previous else "None"
    moved = yield Question(
        "previous_disk",
        _repl(
            f"previous_move = {last}  # (disk, from peg, to peg)", "print(previous_move[0] if previous_move else None)"
        ),
        (EMPTY, *numbers),
        HEADER,
    )
    tops: dict[str, str] = {}
    for name, stack in zip(PEGS, state, strict=True):
        listed = list(reversed(stack))
        text = _repl(f"{name} = {listed}", f"first, *rest = {name} or [None]", "print(first)")
        tops[name] = yield Question(f"top_of_{name}", text, (*numbers, EMPTY), HEADER)
    named = [f'where_is_disk_{_word(top)} = "{name}"' for name, top in tops.items() if top in NUMBER_WORDS]
    peg = yield Question("peg_of_disk_1", _repl(*named, "print(where_is_disk_one)"), PEGS, HEADER)
    if moved != "1":
        rule = [f'disk_1_on_{here}_goes_to = "{there}"' for here, there in cycle_of(disks)]
        text = _repl(*rule, f"print(disk_1_on_{peg}_goes_to)")
        target = yield Question("next_peg_of_disk_1", text, PEGS, HEADER)
        return (1, PEGS.index(peg), PEGS.index(target))
    x, y = (p for p in PEGS if p != peg)
    offered = {name: INFINITE if tops[name] == EMPTY else tops[name] for name in (x, y)}
    if offered[x] == offered[y]:  # earlier answers gave both pegs the same top: no move can be read off
        return (0, PEGS.index(x), PEGS.index(y))
    text = _repl(f"print(min({_value(tops[x])}, {_value(tops[y])}))")
    swapped = _repl(f"print(min({_value(tops[y])}, {_value(tops[x])}))")  # half the voters: min(3, 10) read 10
    smaller = yield Question("smaller_top", text, (offered[x], offered[y]), HEADER, variants=(swapped,))
    source = x if smaller == offered[x] else y
    disk = int(smaller) if smaller.isdigit() else 0
    return (disk, PEGS.index(source), PEGS.index(y if source == x else x))


def truth(question: Question, state: State, previous: Move | None) -> str:
    """The right answer to ``question`` about ``state`` (for scoring only; the chain never sees it)."""
    disks = sum(len(peg) for peg in state)
    one = next(i for i, peg in enumerate(state) if peg and peg[-1] == 1)
    if question.name == "previous_disk":
        return str(previous[0]) if previous else EMPTY
    if question.name.startswith("top_of_"):
        peg = state[PEGS.index(question.name[-1])]
        return str(peg[-1]) if peg else EMPTY
    if question.name == "peg_of_disk_1":
        return PEGS[one]
    if question.name == "next_peg_of_disk_1":
        return dict(cycle_of(disks))[PEGS[one]]
    move = next_move(state, previous, disks)
    return str(move[0])


# -- measuring -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts over questions: right greedy answers, right counted samples, right votes, by question kind."""

    greedy: Counter[str] = field(default_factory=Counter[str])
    samples_right: Counter[str] = field(default_factory=Counter[str])
    samples: Counter[str] = field(default_factory=Counter[str])
    voted: Counter[str] = field(default_factory=Counter[str])
    asked: Counter[str] = field(default_factory=Counter[str])
    worst: tuple[float, str] = (1.0, "")
    """The lowest head-to-head accuracy of one question (below), and that question's name."""

    def add(self, step: Step, right: str, greedy: str | None) -> None:
        kind = step.question.name.removesuffix("_A").removesuffix("_B").removesuffix("_C")
        counts = step.vote.counts
        rival = max((n for answer, n in counts.items() if answer != right), default=0)
        head_to_head = (counts.get(right, 0) + 1) / (counts.get(right, 0) + rival + 2)
        self.worst = min(self.worst, (head_to_head, step.question.name))
        self.asked[kind] += 1
        self.greedy[kind] += greedy == right
        self.voted[kind] += step.answer == right
        self.samples[kind] += sum(step.vote.counts.values())
        self.samples_right[kind] += step.vote.counts.get(right, 0)

    def rows(self) -> dict[str, dict[str, float]]:
        return {
            kind: {
                "asked": self.asked[kind],
                "greedy_accuracy": round(self.greedy[kind] / self.asked[kind], 4),
                "sample_accuracy": round(self.samples_right[kind] / max(1, self.samples[kind]), 4),
                "voted_accuracy": round(self.voted[kind] / self.asked[kind], 4),
            }
            for kind in sorted(self.asked)
        }

    def sample_accuracy(self) -> float:
        return sum(self.samples_right.values()) / max(1, sum(self.samples.values()))

    def average_accuracy(self) -> float:
        """Every counted sample of every question, with Laplace's rule: (right + 1) / (samples + 2)."""
        return (sum(self.samples_right.values()) + 1) / (sum(self.samples.values()) + 2)

    def accuracy_for_k(self) -> float:
        """The accuracy k is chosen from: the hardest question's, not the average.

        MAKER's formula assumes every step is right with the same probability p. These questions
        are not alike: most are answered right by nearly every sample, a few by three in five, and
        the average hides those few. A first-to-ahead-by-k vote is a race between the right answer
        and its strongest rival, so each question's accuracy is taken head to head, with Laplace's
        rule: (right + 1) / (right + rival + 2) (a question with no wrong sample still counts as
        below 1, or k would be 1, no vote at all). k is chosen for the lowest. On the embedded model
        this costs no time: a question is weighed once and its voters draw from the weights, so a
        large k adds draws, not forward passes. If the hardest question's right answer does not
        lead (one half or less), no k helps it, and k falls back to the average.
        """
        return self.worst[0] if self.worst[0] > 0.5 else self.average_accuracy()


@dataclass
class Meter:
    """What the model was asked, in tokens; and voter 0's reply to the current question (the greedy one)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    replies: list[str] = field(default_factory=list[str])

    def wrap(self, answerer: Answerer) -> Answerer:
        async def answer(question: Question, i: int) -> str:
            reply = await answerer(question, i)
            if i == 0:
                self.replies.append(reply)
            return reply

        return answer

    def count(self, completion: Completion) -> None:
        self.prompt_tokens += completion.input_tokens
        self.cached_tokens += completion.cached_tokens


async def calibrate(answerer: Answerer, meter: Meter, disks: int, k: int) -> Tally:
    """Every question along the optimal path, voted, scored against the truth, with the truth fed forward."""
    from chrysalis.voting.micro import decide, normalise_answer

    tally = Tally()
    state, previous = start_state(disks), None
    config = VotingConfig(n=1, k=k, max_samples=20 * k)
    for _ in range(2**disks - 1):
        chain = move_chain(state, previous)
        question = next(chain)
        try:
            while True:
                meter.replies.clear()
                step = await decide(question, meter.wrap(answerer), config)
                right = truth(question, state, previous)
                greedy = normalise_answer(meter.replies[0], question.answers) if meter.replies else None
                tally.add(step, right, greedy)
                question = chain.send(right)
        except StopIteration:
            pass
        move = next_move(state, previous, disks)
        state, previous = apply(state, move), move
    return tally


async def play(answerer: Answerer, meter: Meter, disks: int, k: int) -> dict[str, Any]:
    """A whole game with votes and no oracle; it stops at the first wrong move."""
    state, previous = start_state(disks), None
    config = VotingConfig(n=1, k=k, max_samples=20 * k)
    moves = questions = samples = 0
    started, tokens_before = time.perf_counter(), meter.prompt_tokens - meter.cached_tokens
    solved, failure = True, ""
    for _ in range(2**disks - 1):
        try:
            result = await ask(move_chain(state, previous), answerer, config)
        except Exception as exc:  # VoteError: every reply to one question was flagged
            solved, failure = False, str(exc)
            break
        moves += 1
        questions += len(result.steps)
        samples += result.samples
        if result.value != next_move(state, previous, disks):
            solved, failure = (
                False,
                f"move {moves}: {result.value}, the right move was {next_move(state, previous, disks)}",
            )
            break
        state, previous = apply(state, result.value), result.value
    seconds = time.perf_counter() - started
    return {
        "disks": disks,
        "moves": 2**disks - 1,
        "k": k,
        "solved": solved,
        "moves_played": moves,
        "failure": failure,
        "questions": questions,
        "samples_per_question": round(samples / max(1, questions), 3),
        "seconds": round(seconds, 1),
        "seconds_per_move": round(seconds / max(1, moves), 3),
        "evaluated_tokens_per_move": round(
            (meter.prompt_tokens - meter.cached_tokens - tokens_before) / max(1, moves), 1
        ),
    }


def questions_in(disks: int) -> int:
    """Questions of a whole game: 6 for each move (the previous disk, three tops, disk 1's peg, the last)."""
    return 6 * ((1 << disks) - 1)


def run(
    model: str,
    disk_counts: list[int],
    *,
    calibrate_disks: int,
    calibration_k: int,
    target: float,
) -> int:
    from chrysalis.config import load_settings
    from chrysalis.llm.sampling import Sampler

    sampler = Sampler.for_model(model, load_settings({}), max_tokens=8)
    meter = Meter()
    answerer = sampler.answerer(on_completion=meter.count, completion=True)
    print(
        f"{model}: calibration on the optimal path of {calibrate_disks} disks, votes first-to-ahead-by-{calibration_k}"
    )
    tally, calibration_seconds, rows = asyncio.run(
        measure(answerer, meter, disk_counts, (calibrate_disks, calibration_k), target)
    )
    out = Path(__file__).parent / "results" / f"hanoi_micro_{model.rsplit('-', 1)[-1]}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    solved = [r["disks"] for r in rows if r["solved"] and r["seconds"] <= HOUR]
    out.write_text(
        json.dumps(
            {
                "benchmark": "hanoi_micro",
                "model": model,
                "largest_solved": max(solved, default=0),
                "form": "completion (Python REPL transcript)",
                "target_success": target,
                "calibration": {
                    "disks": calibrate_disks,
                    "k": calibration_k,
                    "seconds": round(calibration_seconds, 1),
                    "sample_accuracy": round(tally.sample_accuracy(), 4),
                    "average_accuracy": round(tally.average_accuracy(), 4),
                    "hardest_question": {"name": tally.worst[1], "head_to_head_accuracy": round(tally.worst[0], 4)},
                    "accuracy_for_k": round(tally.accuracy_for_k(), 4),
                    "questions": tally.rows(),
                },
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


async def measure(
    answerer: Answerer,
    meter: Meter,
    disk_counts: list[int],
    calibration: tuple[int, int],
    target: float,
) -> tuple[Tally, float, list[dict[str, Any]]]:
    """Calibrate, then play the games (one event loop: the answerer keeps the question it last weighed)."""
    started = time.perf_counter()
    tally = await calibrate(answerer, meter, *calibration)
    seconds = time.perf_counter() - started
    p = tally.accuracy_for_k()
    for kind, row in tally.rows().items():
        print(
            f"  {kind:<20} asked {row['asked']:>4}  greedy {row['greedy_accuracy']:.3f}  "
            f"sample {row['sample_accuracy']:.3f}  voted {row['voted_accuracy']:.3f}"
        )
    print(
        f"  per-sample accuracy {tally.sample_accuracy():.4f}; "
        f"hardest question {tally.worst[1]} head to head {tally.worst[0]:.4f}; k from {p:.4f} ({seconds:.0f} s)"
    )
    per_question = seconds / max(1, sum(tally.asked.values()))
    return (
        tally,
        seconds,
        []
        if p <= 0.5
        else await games(answerer, meter, disk_counts, (p, tally.average_accuracy(), per_question), target),
    )


async def games(
    answerer: Answerer, meter: Meter, disk_counts: list[int], calibrated: tuple[float, float, float], target: float
) -> list[dict[str, Any]]:
    """Play each disk count in turn until one fails or the next could not finish within the hour.

    ``calibrated``: the accuracy k is chosen from, the average accuracy (MAKER's predicted samples per
    question, k / (2p - 1), assume it), and the calibration's seconds per question (which,
    times a game's questions, is the predicted seconds: on the embedded model a question is weighed
    once whatever the vote's size, so its cost does not grow with k).
    """
    p, average, per_question = calibrated
    print(
        f"{'disks':>5} {'moves':>6} {'k':>2} {'solved':>6} {'smp/q':>6} {'predicted':>9} {'s/move':>7} {'seconds':>8}"
    )
    rows: list[dict[str, Any]] = []
    for disks in disk_counts:
        if rows and rows[-1]["seconds_per_move"] * (2**disks - 1) > HOUR:
            print(f"{disks} disks would take more than an hour at {rows[-1]['seconds_per_move']} s a move: stopped")
            break
        k = maker_k(questions_in(disks), p, target)
        row = await play(answerer, meter, disks, k)
        row["predicted_samples_per_question"] = round(predicted_samples(k, average), 3)
        row["predicted_seconds"] = round(per_question * questions_in(disks), 1)
        rows.append(row)
        print(
            f"{disks:>5} {row['moves']:>6} {k:>2} {row['solved']!s:>6} {row['samples_per_question']:>6} "
            f"{row['predicted_samples_per_question']:>9} {row['seconds_per_move']:>7} {row['seconds']:>8}",
            flush=True,
        )
        if not row["solved"]:
            print(f"  {row['failure']}")
            break
    return rows
