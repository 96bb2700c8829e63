"""Maximal decomposition of a step (seed 001, MAKER): a chain of micro-questions, each voted.

A small model that picks the right move of a puzzle a third of the time may still read the top disk
of a peg right 99 times in 100. So a step is asked as a chain of questions whose answer space is
tiny (a peg, a number, yes or no); each question is put to several voters and decided
first-to-ahead-by-k, replies outside the answer space are red-flagged and redrawn, and each answer
feeds the next question. Code checks an answer's *format* (is it one of the answers offered?),
never its truth: that is the model's job, and the vote's.

A chain is a generator: it yields a ``Question``, receives the voted answer, and returns the step's
result. It may branch on an answer, or put an earlier answer into a later question::

    def next_move(state) -> MicroChain[Move]:
        peg = yield Question("peg_of_disk_1", "Which peg has disk 1 on top?", ("A", "B", "C"), context=state)
        target = yield Question("target_of_disk_1", f"Disk 1 is on peg {peg}. Where does it go?", ("A", "B", "C"),
                                context=state)
        return (1, peg, target)

    result = await ask(next_move(state), answerer, VotingConfig(n=1, k=3))

``context`` is text that several questions share (the puzzle's state): answerers put it first, so on
the embedded model the questions of one step reuse its KV cache (``chrysalis.llm.sampling``).
``maker_k`` chooses k from a measured accuracy. See docs/voting.md (Towers of Hanoi, worked through).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from chrysalis.voting.core import Vote, VoteError, VotingConfig, vote_async
from chrysalis.voting.red_flags import RedFlag

__all__ = [
    "Answerer",
    "MicroChain",
    "MicroResult",
    "Question",
    "Step",
    "ask",
    "decide",
    "maker_k",
    "normalise_answer",
    "predicted_samples",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Question:
    """One micro-question: its ``name`` (in errors and records), the question, and the answers allowed."""

    name: str
    text: str
    answers: tuple[str, ...]
    """The whole answer space; a reply that is none of these (after ``normalise_answer``) is red-flagged."""
    context: str = ""
    """Text several questions share (the state the step works on), put before the question."""
    variants: tuple[str, ...] = ()
    """The same question in other words (same answers): voter ``i`` is asked the ``i % (1 + len)``-th
    wording, ``text`` first. Voters asked one prompt share its systematic errors, and no vote over
    them fixes one; voters asked different wordings err on different cases, so the vote can."""

    def __post_init__(self) -> None:
        if not self.answers:
            raise ValueError(f"micro-question {self.name!r} offers no answers")
        if len({a.lower() for a in self.answers}) != len(self.answers):
            raise ValueError(f"micro-question {self.name!r} offers the same answer twice: {self.answers}")

    def asked_by(self, voter: int) -> Question:
        """The question as voter ``voter`` is asked it: one wording, no variants."""
        if not self.variants:
            return self
        wordings = (self.text, *self.variants)
        return replace(self, text=wordings[voter % len(wordings)], variants=())


MicroChain = Generator[Question, str, T]
"""A step as a chain: yields questions, receives each voted answer, returns the step's result."""

Answerer = Callable[[Question, int], Awaitable[str]]
"""Voter ``i``'s reply to a question (``chrysalis.llm.sampling.Sampler.answerer`` for a model)."""


@dataclass(frozen=True)
class Step:
    """One answered question: the answer the vote chose (one of ``question.answers``) and the vote."""

    question: Question
    answer: str
    vote: Vote


@dataclass(frozen=True)
class MicroResult(Generic[T]):
    """What a chain returned, and every question on the way."""

    value: T
    steps: list[Step] = field(default_factory=list[Step])

    @property
    def samples(self) -> int:
        """Replies drawn over the whole chain, red-flagged ones included."""
        return sum(step.vote.samples for step in self.steps)

    @property
    def flagged(self) -> int:
        """Replies discarded over the whole chain (too long, or not one of the answers)."""
        return sum(sum(step.vote.flagged.values()) for step in self.steps)


def normalise_answer(reply: str, answers: tuple[str, ...]) -> str | None:
    """The answer ``reply`` names (case, spaces, quotes and a final full stop ignored), or None."""
    text = reply.strip().rstrip(".").strip().strip("\"'`").strip()
    for answer in answers:
        if text.lower() == answer.lower():
            return answer
    return None


def answer_flags(question: Question, max_chars: int) -> RedFlag:
    """The red flags of a micro-question: ``too_long``, or ``bad_format`` (none of the answers offered)."""

    def check(reply: object) -> str | None:
        text = str(reply)
        if len(text) > max_chars:
            return "too_long"
        return "bad_format" if normalise_answer(text, question.answers) is None else None

    return check


async def ask(
    chain: MicroChain[T],
    answerer: Answerer,
    config: VotingConfig,
    *,
    max_chars: int | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> MicroResult[T]:
    """Run ``chain`` to its end, deciding each question by a vote among ``answerer``'s voters.

    ``max_chars`` caps a reply's length (default: the longest answer plus 8 characters). ``on_step``
    sees each answered question as it is decided.

    Raises:
        VoteError: every reply to a question was red-flagged; the message names the question.
    """
    steps: list[Step] = []
    try:
        question = next(chain)
        while True:
            step = await decide(question, answerer, config, max_chars=max_chars)
            steps.append(step)
            if on_step is not None:
                on_step(step)
            question = chain.send(step.answer)
    except StopIteration as done:
        return MicroResult(value=done.value, steps=steps)
    finally:
        chain.close()


async def decide(question: Question, answerer: Answerer, config: VotingConfig, *, max_chars: int | None = None) -> Step:
    """One question, decided by a vote among ``answerer``'s voters (``ask`` without a chain).

    Raises:
        VoteError: every reply was red-flagged; the message names the question.
    """
    cap = max_chars if max_chars is not None else max(len(a) for a in question.answers) + 8

    async def sample(i: int) -> str:
        return await answerer(question.asked_by(i), i)

    def canonical(reply: object) -> str:
        return normalise_answer(str(reply), question.answers) or str(reply)

    try:
        result = await vote_async(sample, config, normalize=canonical, red_flag=answer_flags(question, cap))
    except VoteError as exc:
        raise VoteError(f"micro-question {question.name!r} ({question.text!r}): {exc}") from exc
    return Step(question=question, answer=canonical(result.winner), vote=result)


def maker_k(steps: int, accuracy: float, target: float = 0.95) -> int:
    """The smallest first-to-ahead-by-k that makes ``steps`` voted answers all right with probability ``target``.

    MAKER's bound with one rival answer: each vote is right with probability 1 / (1 + ((1-p)/p)^k),
    so k >= ln(target^(-1/steps) - 1) / ln((1-p)/p). An accuracy of one half or less cannot be
    lifted by voting: ValueError says so.
    """
    if not 0.5 < accuracy <= 1.0:
        raise ValueError(f"voting cannot lift an accuracy of {accuracy:.3f}: it must be above one half")
    if accuracy == 1.0:
        return 1
    per_step = target ** (-1 / steps) - 1
    return max(1, math.ceil(math.log(per_step) / math.log((1 - accuracy) / accuracy)))


def predicted_samples(k: int, accuracy: float) -> float:
    """MAKER's estimate of the counted samples a first-to-ahead-by-k vote takes: k / (2p - 1)."""
    return k / (2 * accuracy - 1)
