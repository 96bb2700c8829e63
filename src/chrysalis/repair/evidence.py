"""Which line to ask the model about next: learnt from how the failing tests react when a line is mutated.

Spectrum-based localisation (``localise.py``) cannot tell lines apart when every test fails: every
line the tests run gets the same score, and the line-by-line samples spread over the whole function.
Mutation-based localisation (Metallaxis, MUSE) breaks the tie: mutate a line and watch the failing
tests; a line whose mutant makes some of them pass is where the behaviour is decided, so it is more
likely the bug than a line whose mutants change nothing.

Repair already runs such mutants: every template candidate is a one-token edit of one line, tested
against the failing tests first. ``LineEvidence`` keeps, for each line, the largest share of the
failing tests one of its templates made pass, at no extra test run; ``CandidateSource`` asks the
model about the lines with evidence first. A template that makes every failing test pass is a
candidate fix itself; a partial one (2 of 3 failing tests) points at the line the model should fix.
With templates off (``model-N``) there is no evidence, and the order is the spectrum's.
"""

from __future__ import annotations

from collections.abc import Sequence

from chrysalis.repair.testrun import TestRun

__all__ = ["LineEvidence"]


class LineEvidence:
    """Per line of a file, the largest share of the failing tests that one of its mutants made pass."""

    def __init__(self, failed: Sequence[str] = ()) -> None:
        """``failed``: the tests that fail on the buggy code (the localisation run's)."""
        self._failed = frozenset(failed)
        self._shares: dict[tuple[str, int], float] = {}

    def learn(self, path: str, line: int | None, run: TestRun) -> None:
        """A mutant of ``path``'s ``line`` was tested: ``run`` says which of the failing tests now pass."""
        if line is None or not self._failed:
            return
        share = len(self._failed & set(run.passed)) / len(self._failed)
        self._shares[path, line] = max(share, self._shares.get((path, line), 0.0))

    def share(self, path: str, line: int) -> float:
        """The largest share of the failing tests a mutant of the line made pass (0 when none or untried)."""
        return self._shares.get((path, line), 0.0)

    def first(self, path: str, lines: Sequence[int]) -> list[int]:
        """``lines`` with those whose mutants made failing tests pass first (largest share first), else as given."""
        return sorted(lines, key=lambda line: -self.share(path, line))
