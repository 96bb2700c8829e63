"""Red flags (seed 001, MAKER): signs that a sample is unreliable, so it is discarded and redrawn.

Each check takes a sample (usually the model's text) and returns the flag's kind, or None. MAKER's
finding is that a reply that is too long or breaks the format is far more often wrong, and that
discarding such replies (rather than repairing them) keeps errors uncorrelated. Combine checks with
``any_of``; the first that fires names the flag counted in ``Vote.flagged``.

    flags = red_flags.any_of(red_flags.too_long(750), red_flags.bad_format(parse_move), red_flags.hedging())
    vote(sample, VotingConfig.level("high"), normalize=parse_move, red_flag=flags)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["RedFlag", "any_of", "bad_format", "hedging", "repetition", "too_long"]

RedFlag = Callable[[Any], "str | None"]
"""A check: the sample -> the kind of flag it raises, or None."""

_HEDGES = re.compile(
    r"\b(i'?m not (?:sure|certain)|i am not (?:sure|certain)|not sure|i think|i believe|maybe|perhaps|probably|"
    r"might be|could be wrong|i guess|it seems|hard to say|unclear|i don'?t know|cannot determine)\b",
    re.IGNORECASE,
)


def too_long(max_chars: int) -> RedFlag:
    """Flags ``too_long`` a sample whose text is longer than ``max_chars`` (MAKER's length cap)."""

    def check(sample: Any) -> str | None:
        return "too_long" if len(str(sample)) > max_chars else None

    return check


def bad_format(parse: Callable[[Any], Any]) -> RedFlag:
    """Flags ``bad_format`` a sample ``parse`` rejects (raises, or returns None): the strict format is broken."""

    def check(sample: Any) -> str | None:
        try:
            return "bad_format" if parse(sample) is None else None
        except Exception:  # any parse error is the flag, whatever its type
            return "bad_format"

    return check


def hedging() -> RedFlag:
    """Flags ``hedging`` a sample with low-confidence wording ("I'm not sure", "maybe", "I think")."""

    def check(sample: Any) -> str | None:
        return "hedging" if _HEDGES.search(str(sample)) else None

    return check


def repetition(*, min_words: int = 4, max_repeats: int = 3) -> RedFlag:
    """Flags ``repetition`` a sample where some run of ``min_words`` words comes more than ``max_repeats`` times.

    A model stuck in a loop repeats itself; such replies are wrong far more often than not.
    """

    def check(sample: Any) -> str | None:
        words = str(sample).lower().split()
        grams = Counter(tuple(words[i : i + min_words]) for i in range(len(words) - min_words + 1))
        return "repetition" if grams and max(grams.values()) > max_repeats else None

    return check


def any_of(*checks: RedFlag) -> RedFlag:
    """The first flag any of ``checks`` raises (cheap checks first pays: the rest are skipped)."""

    def check(sample: Any) -> str | None:
        for one in checks:
            flag = one(sample)
            if flag:
                return flag
        return None

    return check
