"""Vector clocks for the council's records: one counter per author, so "what came before" can be checked.

A record's clock counts, for each author (a persona, or ``COUNCIL`` for a record no persona wrote),
how many records that author had written up to and including this one. The recorder makes each
record's clock from the one before it (``tick``: merge, then one up for the author), so along a
chain no counter may fall and the author's must rise. ``goes_back`` says where a clock breaks
that, which is how ``provenance verify`` finds a record that was signed out of order: a clock that
fell, or an author whose counter stood still.

Clocks are plain ``{author: count}`` dicts so they sit in a record's JSON as they are; with
sorted keys in the canonical JSON, the order their authors are stored in does not matter.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["COUNCIL", "author_of", "goes_back", "merge", "tick"]

COUNCIL = "council"
"""The author of a record no persona wrote (the council's own: the topic, the arbiter's verdict)."""


def author_of(persona: str | None) -> str:
    """Whose counter a record by ``persona`` moves: the persona's, or the council's when there is none."""
    return COUNCIL if persona is None else persona


def merge(*clocks: Mapping[str, int]) -> dict[str, int]:
    """The counter-wise maximum of ``clocks``: everything any of them had seen."""
    merged: dict[str, int] = {}
    for clock in clocks:
        for author, count in clock.items():
            merged[author] = max(merged.get(author, 0), count)
    return merged


def tick(previous: Mapping[str, int], author: str, *seen: Mapping[str, int]) -> dict[str, int]:
    """The clock of ``author``'s next record: ``previous`` and any clocks ``seen`` merged, the author's one up."""
    clock = merge(previous, *seen)
    clock[author] = clock.get(author, 0) + 1
    return dict(sorted(clock.items()))


def goes_back(before: Mapping[str, int], after: Mapping[str, int], author: str) -> str | None:
    """Why a record by ``author`` with clock ``after`` cannot follow one with ``before``; None when it can.

    Every counter of ``before`` must be in ``after`` and no smaller (a missing one counts as 0),
    and ``author``'s must be greater: each record is a new event of its author.
    """
    for name, count in sorted(before.items()):
        if after.get(name, 0) < count:
            return f"clock goes back for {name} ({count} before, {after.get(name, 0)} here)"
    if after.get(author, 0) <= before.get(author, 0):
        return f"clock does not move on for {author}, its author ({after.get(author, 0)} here and before)"
    return None
