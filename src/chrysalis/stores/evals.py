"""The eval store: how each profile did on each kind of task, so the agent can learn which to use.

Every finished run (or sub-agent task) logs one row: which profile and model, what kind of task,
whether it succeeded, and what it cost in time, money and tokens. ``summary`` feeds ``chrysalis
stats``; ``suggest_profile`` is seed 000's learning loop: pick the profile with the best record for
a task type, so preferences emerge from use rather than from hand-tuning. ``by_model`` gives the
per-(task type, model) counts that ``chrysalis.llm.routing.ModelRouter`` turns into posteriors.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from chrysalis.stores.db import Database

__all__ = ["EvalStore", "ModelStats", "ProfileStats"]


@dataclass(frozen=True)
class ProfileStats:
    """The record of one (profile, task type, model) combination."""

    profile: str
    task_type: str
    model: str
    runs: int
    successes: int
    success_rate: float
    """Successes divided by runs, from 0.0 to 1.0."""
    mean_duration_ms: float
    total_cost_usd: float
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class ModelStats:
    """The record of one model on one task type, over every profile."""

    task_type: str
    model: str
    runs: int
    successes: int
    mean_cost_usd: float
    """Mean USD per run (0.0 for local models)."""
    mean_duration_ms: float

    @property
    def success_rate(self) -> float:
        """Successes divided by runs, from 0.0 to 1.0."""
        return self.successes / self.runs


class EvalStore:
    """Task outcomes in the ``evals`` table."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def log(
        self,
        *,
        run_id: str,
        profile: str,
        task_type: str,
        model: str,
        success: bool,
        duration_ms: float,
        cost_usd: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Record the outcome of one task.

        Raises:
            ValueError: a duration, cost or token count is negative (a bug in the caller).
        """
        if min(duration_ms, cost_usd, input_tokens, output_tokens) < 0:
            raise ValueError(
                f"eval numbers must be >= 0, got duration_ms={duration_ms}, cost_usd={cost_usd}, "
                f"input_tokens={input_tokens}, output_tokens={output_tokens}"
            )
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO evals (run_id, profile, task_type, model, success, duration_ms, cost_usd,"
                " input_tokens, output_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    profile,
                    task_type,
                    model,
                    int(success),
                    float(duration_ms),
                    float(cost_usd),
                    int(input_tokens),
                    int(output_tokens),
                    time.time(),
                ),
            )

    def summary(self, *, task_type: str | None = None, model: str | None = None) -> list[ProfileStats]:
        """One ``ProfileStats`` per (profile, task type, model), sorted by those three.

        ``task_type`` and ``model``, when given, keep only the rows of that task type or model.
        """
        where, params = _filters(task_type=task_type, model=model)
        rows = self._db.read(
            "SELECT profile, task_type, model, COUNT(*) AS runs, SUM(success) AS successes,"
            " AVG(duration_ms) AS mean_ms, SUM(cost_usd) AS cost, SUM(input_tokens) AS tin,"
            f" SUM(output_tokens) AS tout FROM evals{where} GROUP BY profile, task_type, model"
            " ORDER BY profile, task_type, model",
            params,
        )
        return [
            ProfileStats(
                profile=str(row["profile"]),
                task_type=str(row["task_type"]),
                model=str(row["model"]),
                runs=int(row["runs"]),
                successes=int(row["successes"]),
                success_rate=int(row["successes"]) / int(row["runs"]),
                mean_duration_ms=float(row["mean_ms"]),
                total_cost_usd=float(row["cost"]),
                input_tokens=int(row["tin"]),
                output_tokens=int(row["tout"]),
            )
            for row in rows
        ]

    def by_model(self, task_type: str | None = None) -> list[ModelStats]:
        """One ``ModelStats`` per (task type, model), over all profiles, sorted by those two.

        ``task_type``, when given, keeps only that task type's rows.
        """
        where, params = _filters(task_type=task_type)
        rows = self._db.read(
            "SELECT task_type, model, COUNT(*) AS runs, SUM(success) AS successes, AVG(cost_usd) AS cost,"
            f" AVG(duration_ms) AS mean_ms FROM evals{where} GROUP BY task_type, model ORDER BY task_type, model",
            params,
        )
        return [
            ModelStats(
                task_type=str(row["task_type"]),
                model=str(row["model"]),
                runs=int(row["runs"]),
                successes=int(row["successes"]),
                mean_cost_usd=float(row["cost"]),
                mean_duration_ms=float(row["mean_ms"]),
            )
            for row in rows
        ]

    def suggest_profile(self, task_type: str, min_runs: int = 1, *, model: str | None = None) -> str | None:
        """The profile with the highest success rate on ``task_type``, or ``None`` with no data.

        Ties go to the profile with more evidence (runs), then the cheaper, then the faster one.
        Profiles with fewer than ``min_runs`` runs of this task type are not considered. With
        ``model``, only that model's runs count (a profile that suits one model may not suit another).
        """
        where, params = _filters(task_type=task_type, model=model)
        rows = self._db.read(
            f"SELECT profile FROM evals{where} GROUP BY profile HAVING COUNT(*) >= ?"
            " ORDER BY CAST(SUM(success) AS REAL) / COUNT(*) DESC, COUNT(*) DESC,"
            " AVG(cost_usd) ASC, AVG(duration_ms) ASC, profile ASC LIMIT 1",
            (*params, min_runs),
        )
        return str(rows[0]["profile"]) if rows else None

    def count(self) -> int:
        """How many outcomes are stored."""
        return int(self._db.read("SELECT COUNT(*) AS n FROM evals")[0]["n"])


def _filters(**columns: str | None) -> tuple[str, tuple[str, ...]]:
    """A ``WHERE`` clause (or ``""``) matching each column given a value, and its parameters."""
    given = {name: value for name, value in columns.items() if value is not None}
    if not given:
        return "", ()
    return " WHERE " + " AND ".join(f"{name} = ?" for name in given), tuple(given.values())
