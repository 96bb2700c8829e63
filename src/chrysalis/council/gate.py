"""The gate (seed 003's Routine A and ``TriggerEvaluator``): does a persona want the floor, and how much?

Deterministic and model-free, so a council's turn-taking can be tested, replayed and benchmarked, and
costs microseconds (docs/council.md has the numbers). The checks, in order:

1. **Turn budget**: no turns left, nobody speaks.
2. **Cooldown**, counted in rounds: a persona that spoke in round ``r`` waits ``cooldown`` rounds and may
   speak again from round ``r + cooldown + 1`` (default ``DEFAULT_COOLDOWN = 1``: never two rounds running).
   Cooldown 0 only stops it from speaking twice in one round.
3. **Mode**, on what is new to the persona: the topic and the other personas' turns since its own last
   turn (at most the last ``HISTORY_WINDOW`` entries of the transcript, the topic being its first entry).
   ``can_interject`` wants to speak; ``wait_for_mention`` only once named (``Lea``, ``@lea``, any case);
   ``proactive_when_triggered`` once named or once one of its trigger words is said.
4. **Triggers** (whole words or phrases, any case) and 5. a **repair signal** (a ``REPAIR_WORDS`` word:
   the discussion went wrong) raise its confidence:

       confidence = min(1, base + 0.05 × min(3, trigger words heard) + 0.15 × repair signal heard)
       base: named 0.8, a trigger word 0.55, free to interject 0.5; not wanting to speak: 0.

A persona's own turns never wake it: David saying "never" is not a trigger for David.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from chrysalis.council.arbiter import Candidate
from chrysalis.council.personas import Persona
from chrysalis.council.words import Words, said, words

__all__ = [
    "BASE_CONFIDENCE",
    "DEFAULT_COOLDOWN",
    "HISTORY_WINDOW",
    "REPAIR_BOOST",
    "REPAIR_WORDS",
    "TRIGGER_STEP",
    "Gate",
    "GateResult",
    "GateRule",
    "Turn",
    "gate",
]

DEFAULT_COOLDOWN = 1
"""Rounds a persona sits out after speaking: one, so the same voices do not open every round."""
HISTORY_WINDOW = 12
"""How many transcript entries (the topic, then the turns) the gate reads back: seed 003's sliding window."""
REPAIR_WORDS = (
    "wrong",
    "mistake",
    "mistaken",
    "incorrect",
    "disagree",
    "confused",
    "confusing",
    "unclear",
    "misunderstood",
)
"""Words that say the discussion went wrong (seed 003's ``RepairPolicy``); hearing one raises confidence."""
GateRule = Literal["budget", "cooldown", "waiting", "mention", "trigger", "interject"]
"""Which rule decided: the first three say no, the last three yes."""
BASE_CONFIDENCE: dict[GateRule, float] = {"mention": 0.8, "trigger": 0.55, "interject": 0.5}
"""Confidence by the rule that said yes, before triggers and repair add to it."""
TRIGGER_STEP = 0.05
"""Added per distinct trigger word heard, for at most three."""
REPAIR_BOOST = 0.15
"""Added when a repair signal was heard."""


@dataclass(frozen=True)
class Turn:
    """One thing a persona said in the council: what the gate reads as history."""

    persona: str
    """Who said it (a persona's name)."""
    text: str
    """What it said."""
    round: int
    """The round it was said in, from 0; a transcript's rounds never go down."""


@dataclass(frozen=True, kw_only=True)
class GateResult:
    """The gate's answer for one persona and one round."""

    persona: str
    should_speak: bool
    confidence: float
    """0..1; 0 when it should not speak."""
    reason: str
    """A short sentence a person can read: why it wants to speak, or why not."""
    rule: GateRule
    heard: tuple[str, ...] = ()
    """The persona's trigger words found in what is new to it, sorted."""
    repair: tuple[str, ...] = ()
    """The repair words found there, sorted."""

    def candidate(self, priority: float) -> Candidate:
        """This answer as the arbiter's ``Candidate``, with the persona's ``priority``."""
        return Candidate(self.persona, priority, self.confidence, self.should_speak)


@dataclass(frozen=True)
class Gate:
    """The gate with its two settings; call it once per persona per round."""

    cooldown: int = DEFAULT_COOLDOWN
    """Rounds a persona sits out after the round it spoke in."""
    window: int = HISTORY_WINDOW
    """Transcript entries read back (the topic counts as one)."""

    def __post_init__(self) -> None:
        if isinstance(self.cooldown, bool) or not isinstance(self.cooldown, int) or self.cooldown < 0:
            raise ValueError(f"cooldown must be a whole number of rounds from 0, not {self.cooldown!r}.")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 1:
            raise ValueError(f"window must be a whole number of turns from 1, not {self.window!r}.")

    def __call__(
        self,
        persona: Persona,
        topic: str,
        history: Sequence[Turn] = (),
        round: int | None = None,
        turns_left: int | None = None,
    ) -> GateResult:
        """Whether ``persona`` wants to speak in ``round``, after ``history``, on ``topic``.

        ``round`` defaults to the one after the last turn of ``history`` (0 when there is none);
        ``turns_left`` None means no budget.
        """
        round = _next_round(history) if round is None else round
        name = persona.name
        if turns_left is not None and turns_left <= 0:
            return GateResult(persona=name, should_speak=False, confidence=0.0, rule="budget", reason=_NO_TURNS)
        spoke = _spoke_since(history, name.casefold(), round - self.cooldown)
        if spoke is not None:
            rounds = "round" if self.cooldown == 1 else "rounds"
            reason = f"{name} spoke in round {spoke} and sits out {self.cooldown} {rounds} after speaking."
            return GateResult(persona=name, should_speak=False, confidence=0.0, rule="cooldown", reason=reason)
        texts = _new_to(name.casefold(), topic, history, self.window)
        mentioned = any(name.casefold() in said(text).tokens for text in texts)
        listens = mentioned or persona.mode == "can_interject" or persona.mode == "proactive_when_triggered"
        heard = _found(words(persona.triggers), texts) if listens else ()  # a lookup less for a waiting Lea
        rule = _rule(persona, mentioned=mentioned, triggered=bool(heard))
        if rule == "waiting":
            return GateResult(persona=name, should_speak=False, confidence=0.0, rule=rule, reason=_waiting(persona))
        repair = _found(_REPAIR, texts)
        return GateResult(
            persona=name,
            should_speak=True,
            confidence=_confidence(rule, heard, repair),
            rule=rule,
            reason=_wants(persona, rule, heard, repair),
            heard=heard,
            repair=repair,
        )

    def candidates(
        self,
        personas: Iterable[Persona],
        topic: str,
        history: Sequence[Turn] = (),
        round: int | None = None,
        turns_left: int | None = None,
    ) -> tuple[Candidate, ...]:
        """Every persona's bid for ``round``, ready for ``Arbiter.select`` (arguments as for a call)."""
        return tuple(self(p, topic, history, round, turns_left).candidate(p.priority) for p in personas)


def gate(
    persona: Persona,
    topic: str,
    history: Sequence[Turn] = (),
    round: int | None = None,
    turns_left: int | None = None,
    cooldown: int = DEFAULT_COOLDOWN,
) -> GateResult:
    """``Gate(cooldown)(persona, topic, history, round, turns_left)``: the gate for one persona, as a function."""
    return Gate(cooldown)(persona, topic, history, round, turns_left)


_NO_TURNS = "No turns are left in the council's budget."
_REPAIR = words(REPAIR_WORDS)


def _next_round(history: Sequence[Turn]) -> int:
    return history[-1].round + 1 if history else 0


def _spoke_since(history: Sequence[Turn], key: str, first_round: int) -> int | None:
    """The round ``key`` last spoke in, if it was ``first_round`` or later (history is in order)."""
    for index in range(len(history) - 1, -1, -1):
        turn = history[index]
        if turn.round < first_round:
            return None
        if turn.persona.casefold() == key:
            return turn.round
    return None


def _new_to(key: str, topic: str, history: Sequence[Turn], window: int) -> list[str]:
    """What others said since ``key``'s last turn, within the last ``window`` entries of topic + history."""
    texts: list[str] = []
    stop = max(-1, len(history) - 1 - window)
    for index in range(len(history) - 1, stop, -1):
        turn = history[index]
        if turn.persona.casefold() == key:
            return texts
        texts.append(turn.text)
    if len(history) < window:  # the topic is still in the window, and the persona has not spoken since
        texts.append(topic)
    return texts


def _rule(persona: Persona, *, mentioned: bool, triggered: bool) -> GateRule:
    if mentioned:
        return "mention"
    if triggered and persona.mode != "wait_for_mention":
        return "trigger"
    return "interject" if persona.mode == "can_interject" else "waiting"


def _confidence(rule: GateRule, heard: tuple[str, ...], repair: tuple[str, ...]) -> float:
    """The module docstring's formula, to 6 decimals (so 0.55 + 0.05 reads 0.6, not 0.6000000000000001)."""
    raw = BASE_CONFIDENCE[rule] + TRIGGER_STEP * min(3, len(heard)) + (REPAIR_BOOST if repair else 0.0)
    return min(1.0, round(raw, 6))


def _waiting(persona: Persona) -> str:
    if persona.mode == "wait_for_mention" or not persona.triggers:
        return f"{persona.name} waits to be mentioned by name (e.g. @{persona.name})."
    more = ", ..." if len(persona.triggers) > 4 else ""
    return f"{persona.name} waits for its name or a trigger word ({', '.join(persona.triggers[:4])}{more})."


def _wants(persona: Persona, rule: GateRule, heard: tuple[str, ...], repair: tuple[str, ...]) -> str:
    if rule == "mention":
        reason = f"{persona.name} was mentioned by name"
    elif rule == "trigger":
        reason = f"{persona.name} heard {', '.join(map(repr, heard))}"
    else:
        reason = f"{persona.name} may interject while turns remain"
    if repair:
        reason += f"; a repair signal ({', '.join(map(repr, repair))}) raises its confidence"
    return reason + "."


def _found(listed: Words, texts: list[str]) -> tuple[str, ...]:
    """The words of ``listed`` that any of ``texts`` holds, sorted."""
    found: set[str] = set()
    for text in texts:
        found |= listed.found(text)
    return tuple(sorted(found))
