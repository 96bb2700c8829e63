"""The ``vote`` op's ballots: several runs of one leaf, each in its own branch, counted by the edit they made.

Seed 001's ``vote`` op runs N agents on the same sub-task and keeps the consensus. Each voter is a
whole sub-agent run in a branch of its own (``branches.py``), sampling as voter ``i``
(``llm/decorrelated.py``: voter 0 greedy, then rising temperatures, and seeds apart). A voter
whose run failed (its final check, the project's tests, failed; or it could not finish) is
red-flagged: the tests pick before the vote does. The others are counted by the edit they made:
each changed file's path and contents, with trailing spaces and blank lines at the ends ignored,
so two voters that wrote the same code agree even if one left a trailing newline. Seed 001's
first-to-k among N: ``n`` voters, and the first edit that ``k`` of them made wins; when none
reaches ``k`` the plurality wins (the earliest voter's edit among equals), reported as no
consensus. Each voter is a whole agent run, so no more than ``n`` are drawn.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from chrysalis.decomposition.branches import Branch, FileChange
from chrysalis.voting import Vote, VotingConfig

__all__ = ["Ballot", "leaf_vote_config", "summary"]


@dataclass
class Ballot:
    """One voter's run of a leaf: its branch, whether it succeeded, its answer and what it changed."""

    voter: int
    branch: Branch
    success: bool = False
    answer: str = ""
    run_id: str | None = None
    changes: list[FileChange] = field(default_factory=list[FileChange])

    def key(self) -> Hashable:
        """The edit, normalised: what voters must share to agree."""
        return tuple((change.path, _normal(change.after)) for change in self.changes)

    def flag(self) -> str | None:
        """``failed`` for a run that did not succeed (its tests failed, or it could not finish)."""
        return None if self.success else "failed"


def leaf_vote_config(level: VotingConfig) -> VotingConfig:
    """Seed 001's first-to-k among the level's ``n`` voters, no more drawn (each is a whole run)."""
    return VotingConfig(n=level.n, k=level.k, rule="first", max_samples=level.n)


def summary(result: Vote, ballots: list[Ballot]) -> str:
    """A node event's words for a finished vote: voters, how the edits split, who won."""
    winner: Ballot = result.winner
    groups = sorted(result.counts.values(), reverse=True)
    flagged = result.flagged.get("failed", 0) + result.flagged.get("error", 0)
    agreed = "consensus" if result.consensus else "no consensus"
    return (
        f"vote of {len(ballots)} voters: edits {'/'.join(map(str, groups))}, {flagged} failed; "
        f"voter {winner.voter}'s edit wins ({agreed})"
    )


def _normal(content: bytes | None) -> bytes | None:
    if content is None:
        return None
    return b"\n".join(line.rstrip() for line in content.strip().splitlines())
