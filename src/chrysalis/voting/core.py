"""``vote`` and ``vote_async``: first-to-ahead-by-k (MAKER) or first-to-k voting over a sampler.

A sampler ``sample(i)`` returns one answer for voter ``i`` (the index is for decorrelation: a
temperature, a seed, a prompt variant or a model per voter). The first ``n`` samples are drawn
concurrently and all of them count (the vote is not decided by whichever comes back first); then
more are drawn, up to ``n`` in flight, until the vote is decided:

- ``rule="ahead"``: the leader has ``k`` votes more than the runner-up (MAKER's first-to-ahead-by-k);
- ``rule="first"``: one answer has ``k`` votes (seed 001's first-to-k).

A sample that ``red_flag`` marks (too long, badly formatted, hedging, repeating; see
``red_flags.py``), or whose sampler raised, is discarded and never counted; it still counts
towards ``max_samples``. Past ``max_samples`` (or ``timeout``) the plurality wins with
``consensus=False``; if no sample could be counted at all, ``VoteError`` says how many were drawn
and why they were discarded. Answers are counted by ``normalize(answer)``; ``Vote.winner`` is the
first raw answer of the winning kind, ``Vote.counts`` is keyed by the normalised form.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["LEVELS", "Vote", "VoteError", "VotingConfig", "vote", "vote_async"]

Rule = Literal["ahead", "first"]
LEVELS: dict[str, tuple[int, int]] = {
    "none": (1, 1),
    "low": (2, 2),
    "medium": (3, 2),
    "high": (5, 3),
    "critical": (7, 4),
}
"""Seed 001's voting thresholds: (voters drawn at once, k)."""


class VoteError(Exception):
    """No sample could be counted: every one was red-flagged (or its sampler failed)."""


@dataclass(frozen=True)
class VotingConfig:
    """How to vote: ``n`` samples at once, decided by ``k`` under ``rule``, at most ``max_samples`` in all."""

    n: int = 1
    k: int = 1
    rule: Rule = "ahead"
    max_samples: int | None = None
    """Samples drawn at most, red-flagged ones included; ``10 * n`` when not given."""
    timeout: float | None = None
    """Seconds the whole vote may take; past it the plurality so far wins (``consensus=False``)."""
    decorrelate: bool = True
    """Give each sample its own voter index (``False``: every call gets index 0, for samplers that decorrelate
    on their own, such as a model sampling at a temperature)."""

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"VotingConfig.n must be at least 1 (got {self.n})")
        if self.k < 1:
            raise ValueError(f"VotingConfig.k must be at least 1 (got {self.k})")
        if self.rule not in ("ahead", "first"):
            raise ValueError(f"VotingConfig.rule must be 'ahead' or 'first' (got {self.rule!r})")
        if self.max_samples is None:
            object.__setattr__(self, "max_samples", 10 * self.n)
        if self.max_samples is not None and self.max_samples < self.n:
            raise ValueError(f"VotingConfig.max_samples ({self.max_samples}) must be at least n ({self.n})")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"VotingConfig.timeout must be positive seconds (got {self.timeout})")

    @property
    def limit(self) -> int:
        """The most samples the vote draws."""
        return self.max_samples or 10 * self.n

    @classmethod
    def level(cls, name: str, **options: Any) -> VotingConfig:
        """Seed 001's levels: none (1,1), low (2,2), medium (3,2), high (5,3), critical (7,4)."""
        if name not in LEVELS:
            raise ValueError(f"Unknown voting level {name!r}; levels: {', '.join(LEVELS)}")
        n, k = LEVELS[name]
        return cls(n=n, k=k, **options)


@dataclass(frozen=True)
class Vote:
    """The outcome: the winning answer, the counts by normalised answer, and what was discarded."""

    winner: Any
    counts: dict[Hashable, int]
    samples: int
    """Samples drawn, red-flagged ones included."""
    flagged: dict[str, int] = field(default_factory=dict[str, int])
    """Discarded samples by red-flag kind (``error`` for a sampler that raised)."""
    consensus: bool = True
    """False when the vote was cut short (``max_samples`` or ``timeout``) and the plurality won."""


@dataclass
class _Tally:
    """The running count of one vote; ``add`` is the hot path (no allocation beyond the counter)."""

    config: VotingConfig
    normalize: Callable[[Any], Hashable]
    red_flag: Callable[[Any], str | None] | None
    counts: Counter[Hashable] = field(default_factory=Counter[Hashable])
    first: dict[Hashable, Any] = field(default_factory=dict[Hashable, Any])
    flagged: Counter[str] = field(default_factory=Counter[str])
    drawn: int = 0
    last_error: BaseException | None = None

    def add(self, answer: Any) -> None:
        self.drawn += 1
        flag = self.red_flag(answer) if self.red_flag is not None else None
        if flag:
            self.flagged[flag] += 1
            return
        key = self.normalize(answer)
        self.counts[key] += 1
        self.first.setdefault(key, answer)

    def failed(self, error: BaseException) -> None:
        self.drawn += 1
        self.flagged["error"] += 1
        self.last_error = error

    def take(self, finished: Future[Any] | asyncio.Task[Any]) -> None:
        """Count a finished sample (a thread's future or an asyncio task): its answer, or its failure."""
        error = finished.exception()
        if error is not None:
            self.failed(error)
        else:
            self.add(finished.result())

    def decided(self) -> bool:
        if not self.counts or self.drawn < min(self.config.n, self.config.limit):  # the first n all count
            return False
        top = self.counts.most_common(2)
        lead = top[0][1]
        if self.config.rule == "first":
            return lead >= self.config.k
        return lead - (top[1][1] if len(top) > 1 else 0) >= self.config.k

    def wanted(self, in_flight: int) -> int:
        """How many more samples to start now: the fewest that could decide the vote, at most ``n`` in flight.

        Drawing a whole new batch of ``n`` after the first would waste samples whenever fewer suffice.
        """
        top = self.counts.most_common(2)
        lead = top[0][1] if top else 0
        if self.config.rule == "ahead":
            lead -= top[1][1] if len(top) > 1 else 0
        needed = max(1, self.config.k - lead) - in_flight
        room = min(self.config.n - in_flight, self.config.limit - self.drawn - in_flight)
        return max(0, min(needed, room))

    def result(self, *, consensus: bool) -> Vote:
        if not self.counts:
            reasons = ", ".join(f"{kind}: {n}" for kind, n in self.flagged.items()) or "none drawn"
            raise VoteError(f"no sample could be counted: all {self.drawn} were discarded ({reasons})") from (
                self.last_error
            )
        key = max(self.counts, key=lambda k: (self.counts[k], -list(self.first).index(k)))
        return Vote(
            winner=self.first[key],
            counts=dict(self.counts),
            samples=self.drawn,
            flagged=dict(self.flagged),
            consensus=consensus,
        )


_POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="chrysalis-vote")
"""Threads for concurrent samples, shared by every vote: starting threads per vote cost ~1 ms a sample.
A sampler that itself votes waits on this pool too; 32 threads leave room for that nesting."""


def _identity(answer: Any) -> Hashable:
    return answer  # type: ignore[no-any-return]


def vote(
    sample: Callable[[int], Any],
    config: VotingConfig,
    *,
    normalize: Callable[[Any], Hashable] | None = None,
    red_flag: Callable[[Any], str | None] | None = None,
) -> Vote:
    """Vote over ``sample(i)``; the first ``n`` samples run concurrently (threads), then as many as needed.

    Raises:
        VoteError: every sample drawn was red-flagged or raised.
    """
    tally = _Tally(config, normalize or _identity, red_flag)
    deadline = None if config.timeout is None else time.monotonic() + config.timeout
    indices = (i if config.decorrelate else 0 for i in range(10**9))
    if config.n == 1:  # the common case, and the hot path of long chains: no threads at all
        return _serial(sample, tally, indices, deadline)
    return _threaded(sample, tally, indices, deadline)


def _serial(sample: Callable[[int], Any], tally: _Tally, indices: Iterator[int], deadline: float | None) -> Vote:
    while tally.drawn < tally.config.limit and not tally.decided():
        if deadline is not None and time.monotonic() >= deadline:
            return tally.result(consensus=False)
        try:
            tally.add(sample(next(indices)))
        except Exception as exc:  # a sampler that fails is one discarded sample
            tally.failed(exc)
    return tally.result(consensus=tally.decided())


def _threaded(sample: Callable[[int], Any], tally: _Tally, indices: Iterator[int], deadline: float | None) -> Vote:
    config = tally.config
    pending: set[Future[Any]] = {_POOL.submit(sample, next(indices)) for _ in range(min(config.n, config.limit))}
    try:
        while pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, pending = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
            for future in done:
                tally.take(future)
            if not done or tally.decided():  # the timeout passed, or the vote is decided
                return tally.result(consensus=bool(done))
            for _ in range(tally.wanted(len(pending))):
                pending.add(_POOL.submit(sample, next(indices)))
        return tally.result(consensus=tally.decided())
    finally:
        for future in pending:  # not started yet: never started; running: left to finish, its answer unused
            future.cancel()


async def vote_async(
    sample: Callable[[int], Awaitable[Any]],
    config: VotingConfig,
    *,
    normalize: Callable[[Any], Hashable] | None = None,
    red_flag: Callable[[Any], str | None] | None = None,
) -> Vote:
    """``vote`` for an async sampler: the first ``n`` samples are tasks at once; cancelling the vote cancels them.

    Raises:
        VoteError: every sample drawn was red-flagged or raised.
    """
    tally = _Tally(config, normalize or _identity, red_flag)
    counter = iter(range(10**9))

    def start() -> asyncio.Task[Any]:
        i = next(counter)
        return asyncio.ensure_future(sample(i if config.decorrelate else 0))

    pending: set[asyncio.Task[Any]] = {start() for _ in range(min(config.n, config.limit))}
    deadline = None if config.timeout is None else asyncio.get_running_loop().time() + config.timeout
    try:
        while pending:
            left = None if deadline is None else max(0.0, deadline - asyncio.get_running_loop().time())
            done, pending = await asyncio.wait(pending, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                return tally.result(consensus=False)
            for task in done:
                tally.take(task)
            if tally.decided():
                return tally.result(consensus=True)
            for _ in range(tally.wanted(len(pending))):
                pending.add(start())
        return tally.result(consensus=tally.decided())
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
