"""What a repair round tries next: the template candidates not yet tried, and the failures to learn from.

Each round of ``Repairer.run`` (``engine.py``) takes its templates from ``next_templates`` (the first
suspect's first, each suspect's edits carrying on where the last round stopped) and, when none of its
candidates passed, gives the next round's prompts ``feedback``: the closest failures (fewest failing
tests), each as its change and the tests' digest (conversational repair).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import replace

from chrysalis.repair.candidates import Candidate, CandidateSource
from chrysalis.repair.failures import failure_digest
from chrysalis.repair.localise import Suspect
from chrysalis.repair.testrun import TestRun

__all__ = ["FEEDBACK_CANDIDATES", "FEEDBACK_LINES", "feedback", "next_templates"]

FEEDBACK_CANDIDATES = 2
"""Failed candidates shown to the next round."""
FEEDBACK_LINES = 8
"""Lines of each one's test digest."""


def next_templates(
    source: CandidateSource,
    suspects: Sequence[Suspect],
    started: dict[tuple[Suspect, bool], Iterator[Candidate]],
    quota: int,
    index: int,
    *,
    variables: bool,
) -> list[Candidate]:
    """Up to ``quota`` template candidates not yet tried, the first suspect's first (each suspect's carry on).

    The variable swaps join (after each suspect's other edits) only with ``variables``: from the second round.
    """
    batch: list[Candidate] = []
    for suspect in suspects:
        for kind in (False, True) if variables else (False,):
            if (suspect, kind) not in started:
                started[suspect, kind] = source.templates(suspect, variables=kind)
            batch += itertools.islice(started[suspect, kind], quota - len(batch))
    return [replace(candidate, index=index + i) for i, candidate in enumerate(batch)]


def feedback(failing: list[tuple[Candidate, TestRun]]) -> str:
    """The closest failures (fewest failing tests), for the next round's prompt: conversational repair."""
    closest = sorted(failing, key=lambda item: (len(item[1].failed) or 99, item[0].changed_lines))
    parts: list[str] = []
    seen: set[str] = set()
    for candidate, run in closest:
        if candidate.diff in seen or len(parts) == FEEDBACK_CANDIDATES:
            continue
        seen.add(candidate.diff)
        change = "\n".join(line for line in candidate.diff.splitlines()[2:] if line[:1] in "+-")
        tail = failure_digest(run.output, FEEDBACK_LINES)
        parts.append(f"This change was tried and the tests still fail:\n{change}\n{tail}")
    return "\n\n".join(parts)
