"""``chrysalis stats``: how each profile and model has done, and the latest runs.

This is the human view of the eval store, the data ``suggest_profile`` learns from; seeing it lets a
user check that what the agent learned matches what they saw. Loaded only when the command runs.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from chrysalis.stores import ProfileStats, RunSummary, Stores

__all__ = ["render_stats"]

RECENT_RUNS = 5


def render_stats(stores: Stores, console: Console) -> None:
    """Print the per-profile summary table and the most recent runs, or a hint when there is no data."""
    summary = stores.evals.summary()
    runs = stores.traces.runs(limit=RECENT_RUNS)
    if not summary and not runs:
        console.print(
            'No runs recorded yet. Run a task (for example `chrysalis run "explain this repository"`) '
            "and its outcome will show up here."
        )
        return
    if summary:
        console.print(_summary_table(summary))
    else:
        console.print("No task outcomes recorded yet; the latest runs are below.")
    if runs:
        console.print(_runs_table(runs))


def _summary_table(summary: list[ProfileStats]) -> Table:
    table = Table(title="Outcomes by profile, task type and model")
    for name in ("profile", "task type", "model"):
        table.add_column(name)
    for name in ("runs", "success %", "mean s", "total USD", "tokens in/out"):
        table.add_column(name, justify="right")
    for row in summary:
        table.add_row(
            row.profile,
            row.task_type,
            row.model,
            str(row.runs),
            f"{row.success_rate * 100:.0f}%",
            f"{row.mean_duration_ms / 1000:.1f}",
            f"{row.total_cost_usd:.4f}",
            f"{row.input_tokens:,}/{row.output_tokens:,}",
        )
    return table


def _runs_table(runs: list[RunSummary]) -> Table:
    table = Table(title=f"Latest {len(runs)} run(s)")
    table.add_column("run")
    table.add_column("started")
    table.add_column("task", overflow="ellipsis", max_width=50, no_wrap=True)
    table.add_column("model")
    table.add_column("status")
    table.add_column("events", justify="right")
    table.add_column("seconds", justify="right")
    for run in runs:
        table.add_row(
            run.run_id,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_at)),
            run.task or "",
            run.model or "",
            _status(run),
            str(run.events),
            f"{run.ended_at - run.started_at:.1f}",
        )
    return table


def _status(run: RunSummary) -> str:
    if run.status == "final":
        return "succeeded" if run.success else "failed"
    if run.status == "error":
        return "stopped"
    return "unfinished"
