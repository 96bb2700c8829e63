"""Finding a persona's words in what was said: whole words and phrases, in any case and any spacing.

The gate asks three questions of every text in its window, for every persona, every round: is my name
here, which of my triggers, which repair words? Both sides are cut into the same tokens (runs of letters,
digits, ``_`` and ``-``; any other mark alone), so ``@lea`` and ``Lea,`` name ``lea`` while ``Leah``,
``lea-team`` and ``non-trivial`` (for the trigger ``trivial``) do not, and ``100%`` is a phrase of two
tokens. A one-token word is a set lookup, a phrase a substring test.

Both steps are remembered, because a turn stays in view for up to ``HISTORY_WINDOW`` rounds and is read
by every persona in each: a text is cut once (``said``), and each list of words remembers what it found
in each text (``Words.found``), so a round costs the new turns' cutting plus dictionary lookups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MEMORY", "Said", "Words", "said", "words"]

MEMORY = 4096
"""Texts each cache keeps: the cut texts (the oldest go first), and each list of words' findings (forgotten
all at once when full)."""
_TOKEN = re.compile(r"[\w-]+|[^\w\s-]")


@dataclass(frozen=True, slots=True)
class Said:
    """A text, cut into casefolded tokens."""

    tokens: frozenset[str]
    """Its distinct tokens: what a one-token word is looked up in."""
    spaced: str
    """Its tokens in order, each with a space either side (``" lea , look "``): what a phrase is found in."""


@lru_cache(maxsize=MEMORY)
def said(text: str) -> Said:
    """``text`` cut into tokens (cached)."""
    tokens = _TOKEN.findall(text.casefold())
    return Said(frozenset(tokens), " " + " ".join(tokens) + " ")


class Words:
    """A list of words and phrases, and what it found in each text it was shown (at most ``MEMORY`` texts)."""

    __slots__ = ("_memo", "phrases", "single")

    def __init__(self, items: tuple[str, ...]) -> None:
        """Cut ``items`` (words or phrases, any case and spacing) the way texts are cut."""
        single: set[str] = set()
        phrases: dict[str, str] = {}
        for item in items:
            tokens = _TOKEN.findall(item.casefold())
            if len(tokens) == 1:
                single.add(tokens[0])
            elif tokens:
                phrases[" ".join(item.casefold().split())] = " " + " ".join(tokens) + " "
        self.single = frozenset(single)
        """The one-token words, casefolded."""
        self.phrases = tuple(phrases.items())
        """Each phrase as reported (casefolded, single-spaced) and as looked for (spaced tokens)."""
        self._memo: dict[str, frozenset[str]] = {}

    def found(self, text: str) -> frozenset[str]:
        """Which of these words ``text`` holds, each as reported (casefolded, single-spaced)."""
        hit = self._memo.get(text)
        if hit is not None:
            return hit
        cut = said(text)
        hit = self.single & cut.tokens
        if self.phrases:
            hit = hit.union(word for word, form in self.phrases if form in cut.spaced)
        if len(self._memo) >= MEMORY:
            self._memo.clear()  # simpler than evicting one, and safe if two threads share this list
        self._memo[text] = hit
        return hit


@lru_cache(maxsize=1024)
def words(items: tuple[str, ...]) -> Words:
    """The ``Words`` of ``items``, one per distinct list (so its memory is shared by every round)."""
    return Words(items)
