"""The arbiter (seed 003's ``AgentArbiter``): of the personas that want the floor, who speaks this round.

Each candidate scores ``priority × confidence + bonus(persona)``, where the diversity bonus is

    bonus(p) = DIVERSITY_WEIGHT / (1 + turns p has won in this council)        (DIVERSITY_WEIGHT = 0.1)

so a persona that has not spoken yet gets 0.1, after one turn 0.05, after two 0.033: the quiet ones
are heard before a strong voice takes every turn, yet a much stronger claim still wins. The bonus
depends only on the persona's own record in this ``Arbiter``, never on the others or on the clock.

A round picks ``min(max_speakers, eligible, turns left)`` winners, best first, where the eligible are
the candidates that want to speak, less last round's winners while any other candidate wants to
(pile-on prevention: at most ``max_speakers`` voices per round, and no one holds the floor while
someone else is waiting). Ties (scores equal to 9 decimal places, so ``0.75 × 0.6`` ties ``0.9 × 0.5``)
go to the higher priority, then to the name in code-point order: never to input order, hash order or time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_SPEAKERS", "DIVERSITY_WEIGHT", "TIE_DIGITS", "Arbiter", "Candidate", "Selection"]

DEFAULT_MAX_SPEAKERS = 2
"""Voices per round unless told otherwise: two is a conversation, four is a pile-on."""
DIVERSITY_WEIGHT = 0.1
"""The bonus of a persona that has not spoken yet; it halves, thirds... as the persona wins turns."""
TIE_DIGITS = 9
"""Scores are compared rounded to this many decimals, so float noise never breaks a tie."""


@dataclass(frozen=True)
class Candidate:
    """A persona's bid for the floor this round (the gate's answer, with the persona's priority)."""

    persona: str
    """The persona's name; unique among one round's candidates."""
    priority: float
    """The persona's turn priority, 0..1."""
    confidence: float
    """How much it wants to speak, 0..1 (``GateResult.confidence``)."""
    should_speak: bool = True
    """Whether it wants to speak at all; one that does not is never chosen."""

    def __post_init__(self) -> None:
        if not isinstance(self.persona, str) or not self.persona:
            raise ValueError(f"A candidate's persona must be a non-empty name, not {self.persona!r}.")
        for what, value in (("priority", self.priority), ("confidence", self.confidence)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"Candidate {self.persona!r}: {what} must be a number from 0 to 1, not {value!r}.")
            if not 0 <= value <= 1:
                raise ValueError(f"Candidate {self.persona!r}: {what} must be from 0 to 1, not {value!r}.")


@dataclass(frozen=True, kw_only=True)
class Selection:
    """One round's outcome: who speaks, who does not and why, and every candidate's score."""

    round: int
    """Which call of ``Arbiter.select`` this was, from 0."""
    winners: tuple[str, ...]
    """The personas that speak, best first."""
    losers: tuple[str, ...]
    """Every other candidate, best score first (those that did not want to speak included)."""
    scores: dict[str, float]
    """Each candidate's ``priority × confidence + bonus``, unrounded."""
    bonus: dict[str, float]
    """Each candidate's diversity bonus, unrounded."""
    reasons: dict[str, str]
    """Each loser: why it was not chosen, in a short sentence."""
    turns_left: int | None
    """The turns the council has left after this round; None: no budget."""


class Arbiter:
    """Chooses each round's speakers and remembers, across calls, last round's winners and the turns spent.

    One ``Arbiter`` is one council: make a new one for a new discussion.
    """

    def __init__(self, max_speakers: int = DEFAULT_MAX_SPEAKERS, turn_budget: int | None = None) -> None:
        """``max_speakers`` voices per round at most; ``turn_budget`` turns in all (None: unlimited).

        Raises:
            ValueError: ``max_speakers`` is below 1, or ``turn_budget`` below 0.
        """
        if isinstance(max_speakers, bool) or not isinstance(max_speakers, int) or max_speakers < 1:
            raise ValueError(f"max_speakers must be a whole number of at least 1, not {max_speakers!r}.")
        if turn_budget is not None and (
            isinstance(turn_budget, bool) or not isinstance(turn_budget, int) or turn_budget < 0
        ):
            raise ValueError(f"turn_budget must be None (unlimited) or a whole number from 0, not {turn_budget!r}.")
        self.max_speakers = max_speakers
        self.turn_budget = turn_budget
        self._spoken: dict[str, int] = {}
        self._last: tuple[str, ...] = ()
        self._spent = 0
        self._rounds = 0

    @property
    def turns_left(self) -> int | None:
        """Turns not yet spent (None: unlimited); the gate refuses every persona at 0."""
        return None if self.turn_budget is None else self.turn_budget - self._spent

    @property
    def last_winners(self) -> tuple[str, ...]:
        """Last round's winners, best first (none before the first round)."""
        return self._last

    @property
    def spoken(self) -> Mapping[str, int]:
        """Turns won so far, by persona (a copy)."""
        return dict(self._spoken)

    @property
    def rounds(self) -> int:
        """How many rounds have been decided."""
        return self._rounds

    def bonus_of(self, persona: str) -> float:
        """The diversity bonus of ``persona`` now: ``DIVERSITY_WEIGHT / (1 + turns it has won)``."""
        return DIVERSITY_WEIGHT / (1 + self._spoken.get(persona, 0))

    def select(self, candidates: Iterable[Candidate]) -> Selection:
        """Decide this round: rank, keep the eligible, take the best that fit; then spend their turns.

        Raises:
            ValueError: two candidates have the same persona name.
        """
        pool = list(candidates)
        _check_unique(pool)
        bonus = {c.persona: self.bonus_of(c.persona) for c in pool}
        scores = {c.persona: c.priority * c.confidence + bonus[c.persona] for c in pool}
        ranked = sorted(pool, key=lambda c: (-round(scores[c.persona], TIE_DIGITS), -c.priority, c.persona))
        wanting = [c.persona for c in ranked if c.should_speak]
        fresh = [name for name in wanting if name not in self._last]
        eligible = fresh or wanting
        left = self.turns_left
        count = min(self.max_speakers, len(eligible), len(eligible) if left is None else left)
        winners = tuple(eligible[:count])
        losers = tuple(c.persona for c in ranked if c.persona not in winners)
        reasons = {name: self._why_not(name, wanting, eligible, left) for name in losers}
        self._record(winners)
        return Selection(
            round=self._rounds - 1,
            winners=winners,
            losers=losers,
            scores=scores,
            bonus=bonus,
            reasons=reasons,
            turns_left=self.turns_left,
        )

    def _why_not(self, name: str, wanting: list[str], eligible: list[str], left: int | None) -> str:
        if name not in wanting:
            return "did not want to speak"
        if name not in eligible:
            return "spoke last round, and others wanted to speak"
        if left is not None and left < self.max_speakers:
            return "the turn budget had no turn left for it"
        return f"outscored: at most {self.max_speakers} speaker(s) a round"

    def _record(self, winners: tuple[str, ...]) -> None:
        for name in winners:
            self._spoken[name] = self._spoken.get(name, 0) + 1
        self._spent += len(winners)
        self._last = winners
        self._rounds += 1


def _check_unique(pool: list[Candidate]) -> None:
    seen: set[str] = set()
    for candidate in pool:
        if candidate.persona in seen:
            raise ValueError(f"Two candidates are named {candidate.persona!r}: a persona bids once a round.")
        seen.add(candidate.persona)
