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

Where no mutant makes a failing test pass (the common case when the bug needs more than one token),
the failing assertions' values still discriminate: a line whose mutant changes what a failing
assertion got (``assert 5 == 4`` becomes ``assert 3 == 4``) computes the wrong value; a line whose
mutants leave every got value as it was does not reach it (Metallaxis counts such a changed output as
a kill). That share is the second key. With templates off (``model-N``) there is no evidence, and
the order is the spectrum's.
"""

from __future__ import annotations

from collections.abc import Sequence

from chrysalis.repair.failures import assertions
from chrysalis.repair.testrun import TestRun

__all__ = ["LineEvidence"]


class LineEvidence:
    """Per line of a file: the largest share of the failing tests one of its mutants made pass, then moved."""

    def __init__(self, failed: Sequence[str] = (), output: str = "") -> None:
        """``failed``: the tests that fail on the buggy code; ``output``: that run's output (its assertions)."""
        self._failed = frozenset(failed)
        self._got = {found.test: found.got for found in assertions(output)}
        self._shares: dict[tuple[str, int], tuple[float, float]] = {}

    def learn(self, path: str, line: int | None, run: TestRun) -> None:
        """A mutant of ``path``'s ``line`` was tested: ``run`` says which failing tests pass, and what they got."""
        if line is None or not self._failed:
            return
        passed = len(self._failed & set(run.passed)) / len(self._failed)
        moved = self._moved(run.output)
        best = self._shares.get((path, line), (0.0, 0.0))
        self._shares[path, line] = max((passed, moved), best)

    def _moved(self, output: str) -> float:
        """The share of the failing assertions whose got value this run changed (0 when none were read)."""
        if not self._got:
            return 0.0
        now = {found.test: found.got for found in assertions(output)}
        return sum(test in now and now[test] != got for test, got in self._got.items()) / len(self._got)

    def share(self, path: str, line: int) -> float:
        """The largest share of the failing tests a mutant of the line made pass (0 when none or untried)."""
        return self._shares.get((path, line), (0.0, 0.0))[0]

    def moved(self, path: str, line: int) -> float:
        """The share of the failing assertions whose got value a mutant of the line changed (0 when none)."""
        return self._shares.get((path, line), (0.0, 0.0))[1]

    def first(self, path: str, lines: Sequence[int]) -> list[int]:
        """``lines`` ordered by pass share, then by moved share (largest first), else as given."""
        return sorted(lines, key=lambda line: tuple(-value for value in self._shares.get((path, line), (0.0, 0.0))))
