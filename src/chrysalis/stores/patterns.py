"""Decomposition patterns (seed 001): the plans that worked, one elite per task type and phenotype bin.

A pattern is a plan's shape (its steps: which op at which depth, with which sub-agent profile and
subtask text) with the phenotype it showed (depth, breadth, cost, context, success rate) and a
score. The table is a MAP-Elites archive: the key is (task type, bin), and a new pattern replaces
the cell's elite only when it scores higher, so good patterns crowd out bad ones niche by niche
while different shapes (shallow/deep, narrow/wide, cheap/dear) are all kept. The decomposer asks
for the nearest patterns of a task type and replays the best one's shape as a hint to its planner.

Each pattern keeps how it fared: its own run counts once, and each run that replayed it adds a
success or a failure and its duration (``record``). The decomposer ranks the patterns it may replay
by closeness and by that record (``Pattern.success_estimate``), so a shape that keeps failing when
replayed stops being offered even if its first run scored well.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from chrysalis.stores.db import Database

__all__ = ["Pattern", "PatternStore"]


@dataclass(frozen=True)
class Pattern:
    """One archived plan: where it sits in the archive and what it did."""

    task_type: str
    bin: str
    """The phenotype bin (``d2-b4-cost_low-ctx_low``): one elite per (task type, bin)."""
    task: str
    """The task it was made for (compared with new tasks by words)."""
    priority: str
    steps: list[dict[str, Any]]
    phenotype: dict[str, float]
    score: float
    created_at: float = 0.0
    successes: int = 0
    """Runs that used it and succeeded: its own first, then the runs that replayed it."""
    failures: int = 0
    total_seconds: float = 0.0
    """The seconds of those runs, together."""

    @property
    def runs(self) -> int:
        """Runs on record (0 for a pattern archived before records were kept)."""
        return self.successes + self.failures

    @property
    def mean_seconds(self) -> float | None:
        """Seconds per run on record; None without a record."""
        return self.total_seconds / self.runs if self.runs else None

    @property
    def success_estimate(self) -> float:
        """The chance a replay succeeds: Laplace's rule, (successes + 1) / (runs + 2); 0.5 with no record."""
        return (self.successes + 1) / (self.runs + 2)


class PatternStore:
    """The ``decomposition_patterns`` table."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def offer(self, pattern: Pattern) -> bool:
        """Keep ``pattern`` if its cell is empty or it beats the cell's elite; True when it was kept.

        A kept pattern replaces the elite and its record: it starts with its own run (``successes``,
        ``failures`` and ``total_seconds`` as given).
        """
        row = (
            pattern.task_type,
            pattern.bin,
            pattern.task,
            pattern.priority,
            json.dumps(pattern.steps),
            json.dumps(pattern.phenotype),
            pattern.score,
            time.time(),
            pattern.successes,
            pattern.failures,
            pattern.total_seconds,
        )
        with self._db.write() as conn:
            old = conn.execute(
                "SELECT score FROM decomposition_patterns WHERE task_type = ? AND bin = ?",
                (pattern.task_type, pattern.bin),
            ).fetchone()
            if old is not None and float(old[0]) >= pattern.score:
                return False
            conn.execute(
                "INSERT OR REPLACE INTO decomposition_patterns (task_type, bin, task, priority, steps, phenotype, "
                "score, created_at, successes, failures, total_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return True

    def record(self, pattern: Pattern, *, success: bool, seconds: float) -> None:
        """A run that replayed ``pattern`` ended: one more success or failure, and its seconds.

        The record is the cell's: if another pattern took the cell meanwhile, the outcome is not its
        and nothing is recorded.
        """
        with self._db.write() as conn:
            conn.execute(
                "UPDATE decomposition_patterns SET successes = successes + ?, failures = failures + ?, "
                "total_seconds = total_seconds + ? WHERE task_type = ? AND bin = ? AND task = ? AND created_at = ?",
                (
                    int(success),
                    int(not success),
                    seconds,
                    pattern.task_type,
                    pattern.bin,
                    pattern.task,
                    pattern.created_at,
                ),
            )

    def elites(self, task_type: str | None = None) -> list[Pattern]:
        """Every cell's elite (of one task type, or all), best score first."""
        where, params = ("WHERE task_type = ?", (task_type,)) if task_type else ("", ())
        rows = self._db.read(f"SELECT * FROM decomposition_patterns {where} ORDER BY score DESC", params)
        return [
            Pattern(
                task_type=r["task_type"],
                bin=r["bin"],
                task=r["task"],
                priority=r["priority"],
                steps=json.loads(r["steps"]),
                phenotype=json.loads(r["phenotype"]),
                score=float(r["score"]),
                created_at=float(r["created_at"]),
                successes=int(r["successes"]),
                failures=int(r["failures"]),
                total_seconds=float(r["total_seconds"]),
            )
            for r in rows
        ]
