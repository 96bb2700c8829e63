"""Why a sampled reply could not be used, by kind: so a round can say where its samples went.

``replies.apply_reply`` explains each unusable reply in a sentence for the trace; the round's
event (``repair_round``'s ``unusable_by``) counts them by kind, which is what a reader comparing
models or prompts needs ("9 of 10 discarded" says nothing; "8 did not parse" says what to fix).
``kept_line`` is a reply to "correct line N, or repeat it if it is right" that repeated it: an answer
the question offers, but no candidate, so it still counts as unusable (the bench reports its share
apart, ``kept_line_pct``).
"""

from __future__ import annotations

__all__ = ["KINDS", "discard_reason"]

_DISCARDS = (
    ("the reply is not the JSON asked for", "not_json"),
    ("the reply's code is more than one line", "more_than_one_line"),
    ("the reply changes nothing", "unchanged"),
    ("the reply keeps line", "kept_line"),
    ("the diff adds and removes nothing", "unchanged"),
    ("the reply does not parse", "does_not_parse"),
    ("the patched file does not parse", "does_not_parse"),
    ("the reply is not just the function", "outside_the_function"),
    ("the diff's old lines are not in", "outside_the_function"),
    ("the diff has no context", "not_placed"),
)
"""Each reason ``replies.apply_reply`` gives for an unusable reply, by the start of its message, and its kind."""


def discard_reason(problem: str | None) -> str:
    """The kind of an unusable reply (``repair_round``'s ``unusable_by``): why samples are wasted, counted."""
    return next((kind for start, kind in _DISCARDS if (problem or "").startswith(start)), "other")


KINDS = (*dict.fromkeys(kind for _start, kind in _DISCARDS), "other")
