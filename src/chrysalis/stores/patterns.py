"""Decomposition patterns (seed 001): the plans that worked, one elite per task type and phenotype bin.

A pattern is a plan's shape (its steps: which op at which depth, with which sub-agent profile and
subtask text) with the phenotype it showed (depth, breadth, cost, context, success rate) and a
score. The table is a MAP-Elites archive: the key is (task type, bin), and a new pattern replaces
the cell's elite only when it scores higher, so good patterns crowd out bad ones niche by niche
while different shapes (shallow/deep, narrow/wide, cheap/dear) are all kept. The decomposer asks
for the nearest patterns of a task type and replays the best one's shape as a hint to its planner.
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


class PatternStore:
    """The ``decomposition_patterns`` table."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def offer(self, pattern: Pattern) -> bool:
        """Keep ``pattern`` if its cell is empty or it beats the cell's elite; True when it was kept."""
        row = (
            pattern.task_type,
            pattern.bin,
            pattern.task,
            pattern.priority,
            json.dumps(pattern.steps),
            json.dumps(pattern.phenotype),
            pattern.score,
            time.time(),
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
                "score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return True

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
            )
            for r in rows
        ]
