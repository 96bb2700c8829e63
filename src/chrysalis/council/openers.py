"""Openers and idioms (seed 003's ``OpenerSelector`` and ``IdiomRegistry``): a little voice for each persona.

A winner's turn may begin with an opener that fits why it spoke (named, triggered, interjecting) and
carry one of its idioms. Both are drawn by weight from a ``random.Random`` the caller seeds, so a
council replays word for word from its seed, and both are data (``OPENERS``, ``IDIOMS``), not prompts.
Idioms are throttled: a persona uses one at most once every ``idiom_every`` of its turns, and never the
same one twice running, so a catchphrase stays a seasoning. A persona with no entries (one from a file)
gets no opener and no idiom: the model's own words stand.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chrysalis.council.gate import GateRule

__all__ = ["IDIOMS", "OPENERS", "Phrase", "Voice", "weighted_choice"]


@dataclass(frozen=True)
class Phrase:
    """A phrase with its weight in a draw, and the gate rule it fits (None: any)."""

    text: str
    weight: float = 1.0
    rule: GateRule | None = None


OPENERS: Mapping[str, tuple[Phrase, ...]] = {
    "ada": (
        Phrase("Structurally,", 2),
        Phrase("Looking at the shape of this:"),
        Phrase("On the design question you raised:", 2, "mention"),
    ),
    "lea": (
        Phrase("Thanks for asking.", 2, "mention"),
        Phrase("From the reader's side:", 2),
        Phrase("As someone who will have to use this:"),
    ),
    "phil": (
        Phrase("Putting numbers on it:", 2),
        Phrase("On the odds:", 1, "trigger"),
        Phrase("Quick calibration check:"),
    ),
    "david": (
        Phrase("Before we settle on that:", 2, "trigger"),
        Phrase("How sure are we?", 1, "trigger"),
        Phrase("A check on our own reasoning:"),
    ),
}
"""Openers by persona; one that names a rule is drawn only when that rule let the persona speak."""
IDIOMS: Mapping[str, tuple[Phrase, ...]] = {
    "ada": (Phrase("Separate what changes from what stays."), Phrase("Make the seams visible.")),
    "lea": (
        Phrase("Name it for the reader, not the writer."),
        Phrase("If it needs a comment, it needs a better name."),
    ),
    "phil": (Phrase("What is the base rate?", 2), Phrase("Estimate first, then argue.")),
    "david": (Phrase("What would prove us wrong?", 2), Phrase("Familiar is not the same as right.")),
}
"""Idioms by persona, drawn by weight."""


def weighted_choice(rng: random.Random, phrases: Sequence[Phrase]) -> Phrase | None:
    """One of ``phrases``, each as likely as its weight (None when there are none or all weigh 0)."""
    live = [p for p in phrases if p.weight > 0]
    return rng.choices(live, weights=[p.weight for p in live])[0] if live else None


class Voice:
    """Draws openers and idioms for a council's turns, remembering each persona's idioms for the throttle."""

    def __init__(
        self,
        rng: random.Random,
        *,
        openers: Mapping[str, Sequence[Phrase]] = OPENERS,
        idioms: Mapping[str, Sequence[Phrase]] = IDIOMS,
        idiom_every: int = 3,
    ) -> None:
        """Draw from ``rng`` (seed it for a council that replays); an idiom at most every ``idiom_every`` turns.

        Raises:
            ValueError: ``idiom_every`` is below 1.
        """
        if isinstance(idiom_every, bool) or not isinstance(idiom_every, int) or idiom_every < 1:
            raise ValueError(f"idiom_every must be a whole number of turns from 1, not {idiom_every!r}.")
        self.rng = rng
        self.openers = openers
        self.idioms = idioms
        self.idiom_every = idiom_every
        self._turns: dict[str, int] = {}
        self._last_idiom: dict[str, tuple[int, str]] = {}

    def opener(self, persona: str, rule: GateRule) -> str | None:
        """An opener for ``persona``'s turn, among those that fit ``rule`` (the gate's reason to speak)."""
        fitting = [p for p in self.openers.get(persona, ()) if p.rule in (None, rule)]
        chosen = weighted_choice(self.rng, fitting)
        return None if chosen is None else chosen.text

    def idiom(self, persona: str) -> str | None:
        """An idiom for ``persona``'s next turn, or None while the throttle holds; counts the turn either way."""
        turn = self._turns.get(persona, 0)
        self._turns[persona] = turn + 1
        last = self._last_idiom.get(persona)
        if last is not None and turn - last[0] < self.idiom_every:
            return None
        fresh = [p for p in self.idioms.get(persona, ()) if last is None or p.text != last[1]]
        chosen = weighted_choice(self.rng, fresh)
        if chosen is None:
            return None
        self._last_idiom[persona] = (turn, chosen.text)
        return chosen.text
