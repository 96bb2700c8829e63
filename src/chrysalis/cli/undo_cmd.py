"""``chrysalis undo``: take back a run and the runs it started, or (``--list``) show what that would restore."""

from __future__ import annotations

from rich.console import Console

from chrysalis.config import SettingFlags, load_settings
from chrysalis.stores import Stores, UndoReport
from chrysalis.stores.run_tree import RunTree, find_tree, undo_tree

__all__ = ["undo_command"]

TASK_CHARS = 60
"""How much of each run's task ``--list`` shows."""


def undo_command(flags: SettingFlags, run_id: str | None, *, list_only: bool = False) -> int:
    """Restore the files a run and its sub-runs changed (tools and commands); say what undo leaves as it is."""
    settings = load_settings(flags)
    console = Console(highlight=False)
    with Stores.open(settings.home) as stores:
        if list_only:
            tree = find_tree(stores.db, stores.checkpoints, settings.workspace, run_id)
            _print_tree(stores, tree, console)
            return 0
        report = undo_tree(stores.db, stores.checkpoints, settings.workspace, run_id)
    for path in report.restored:
        console.print(f"restored {path}", markup=False)
    console.print(f"undid {len(report.restored)} file(s) of run {report.run_id}{_started(report)}", markup=False)
    for note in report.notes():
        console.print(note, markup=False)
    return 0


def _started(report: UndoReport) -> str:
    """`` and the N run(s) it started: ...`` when the undo took back more than the run itself."""
    others = [run for run in report.runs if run != report.run_id]
    return f" and {len(others)} run(s) it started: {', '.join(others)}" if others else ""


def _print_tree(stores: Stores, tree: RunTree, console: Console) -> None:
    """One line per run, indented under the run that started it; then what undo would restore in all."""
    for run in tree.runs:
        files = len(stores.checkpoints.changed(tree.workspace, (run.run_id,))) if run.changed else 0
        short = _one_line(run.task or "(task not recorded)")
        undone = "  (undone)" if run.undone else ""
        console.print(f"{'  ' * run.depth}{run.run_id}  {files} file(s)  {short}{undone}", markup=False, soft_wrap=True)
    total = len(stores.checkpoints.changed(tree.workspace, tree.undoable))
    console.print(
        f"chrysalis undo would restore {total} file(s) of {len(tree.undoable)} run(s), newest first: "
        f"{', '.join(tree.undoable)}. Nothing was changed.",
        markup=False,
        soft_wrap=True,  # one line per run, however narrow the terminal: the tree stays readable and greppable
    )


def _one_line(task: str) -> str:
    """The task on one line of at most ``TASK_CHARS``, control characters shown as ``?``.

    A leaf's task is the planner model's text: it must not break the tree's lines or reach the terminal
    as an escape sequence.
    """
    flat = "".join(ch if ch.isprintable() else "?" for ch in " ".join(task.split()))
    return flat if len(flat) <= TASK_CHARS else flat[: TASK_CHARS - 1] + "…"
