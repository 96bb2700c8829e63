"""A run and the runs it started (sub-agents, decomposition leaves), so that undo takes them back together.

A sub-agent's or a leaf's ``start`` event names its ``parent_run_id`` (``events.Start``), and the trace
store keeps every event, so the tree is read from there: each run that changed files in the workspace
(``checkpoint_runs``) is followed up its parents, one indexed look-up per level. The tree of a run is
the runs below it that changed files, with the runs between (a decomposition's own run changes
nothing; its leaves do). A run without a ``start`` event in the traces counts as top-level, so such
a run is undone alone, exactly as before.

``find_tree(..., None)`` is the tree of the latest top-level run: the top of the latest run not yet
undone. ``undo_tree`` hands the tree's runs to ``CheckpointStore.restore``, which gives each path its
earliest state among them all: the same as undoing the runs one by one, newest first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from chrysalis.errors import UsageError
from chrysalis.stores.checkpoints import CheckpointRun, CheckpointStore, UndoReport
from chrysalis.stores.db import Database

__all__ = ["RunTree", "TreeRun", "find_tree", "undo_tree"]

_CHUNK = 500
"""Run ids per look-up (SQLite limits the parameters of one statement)."""


@dataclass(frozen=True)
class TreeRun:
    """One run of a tree, as ``undo --list`` shows it."""

    run_id: str
    depth: int
    """0 for the top run, 1 for the runs it started, and so on."""
    task: str | None
    """From the run's ``start`` event; None when the traces have none."""
    changed: bool
    """Whether the run itself changed files in the workspace (a decomposition's own run does not)."""
    undone: bool


@dataclass(frozen=True)
class RunTree:
    """A top run and the runs it started that changed files here, parents before children."""

    top: str
    workspace: Path
    runs: tuple[TreeRun, ...]
    undoable: tuple[str, ...]
    """The runs undo restores: those that changed files and are not undone yet, newest first."""


@dataclass(frozen=True)
class _Start:
    parent: str | None
    task: str | None
    ts: float


def find_tree(db: Database, checkpoints: CheckpointStore, workspace: Path, run_id: str | None) -> RunTree:
    """The tree undo would take back: ``run_id``'s, or (None) the latest top-level run's in ``workspace``.

    Raises:
        UsageError: nothing to undo here, ``run_id`` is unknown (the message lists the runs that can be
            undone), changed no files here (nor did the runs it started), or was already undone.
    """
    root = workspace.resolve()
    runs = {run.run_id: run for run in checkpoints.runs(root)}
    starts = _starts(db, runs)
    if run_id is None:
        top = _latest_top(root, runs, starts)
    elif run_id in runs or run_id in starts or _starts(db, [run_id]):
        top = run_id
    else:
        raise UsageError(_unknown(run_id, root, runs, starts))
    below = _members(top, runs, starts)
    if not any(member in runs for member in below):
        raise UsageError(
            f"Nothing to undo for run {top!r} in {root}: it changed no files here, nor did the runs it started. "
            "Check the run id and the workspace (--workspace)."
        )
    undoable = tuple(r for r in runs if r in below and not runs[r].undone)  # runs() is newest first
    if not undoable:
        raise UsageError(f"Run {top!r} in {root} was already undone; there is nothing left to restore.")
    return RunTree(top, root, tuple(_ordered(top, below, runs, starts)), undoable)


def undo_tree(db: Database, checkpoints: CheckpointStore, workspace: Path, run_id: str | None) -> UndoReport:
    """Undo a run and every run it started (``find_tree``) as one; see ``CheckpointStore.restore``."""
    tree = find_tree(db, checkpoints, workspace, run_id)
    return checkpoints.restore(tree.workspace, tree.undoable, label=tree.top)


def _starts(db: Database, run_ids: Iterable[str]) -> dict[str, _Start]:
    """The ``start`` events of ``run_ids`` and of all their ancestors, by run id."""
    found: dict[str, _Start] = {}
    pending, asked = set(run_ids), set[str]()
    while pending:
        batch = sorted(pending)[:_CHUNK]
        asked.update(batch)
        rows = db.read(
            "SELECT run_id, json_extract(data, '$.parent_run_id') AS parent, json_extract(data, '$.task') AS task,"
            f" ts FROM traces WHERE type = 'start' AND run_id IN ({', '.join('?' * len(batch))}) ORDER BY id DESC",
            tuple(batch),
        )
        for row in rows:  # the first start of a run wins (rows come newest first)
            parent = row["parent"] if isinstance(row["parent"], str) else None
            found[str(row["run_id"])] = _Start(parent, row["task"], float(row["ts"]))
        pending = ({s.parent for s in found.values() if s.parent} | pending) - asked
    return found


def _ancestors(run_id: str, starts: dict[str, _Start]) -> list[str]:
    """``run_id`` and its parents up to the top run (a corrupt loop of parents stops where it repeats)."""
    chain = [run_id]
    while (start := starts.get(chain[-1])) is not None and start.parent and start.parent not in chain:
        chain.append(start.parent)
    return chain


def _latest_top(root: Path, runs: dict[str, CheckpointRun], starts: dict[str, _Start]) -> str:
    latest = next((run.run_id for run in runs.values() if not run.undone), None)
    if latest is None:
        raise UsageError(
            f"Nothing to undo in {root}: no run has changed files in this workspace, or every "
            "such run was already undone. (Undo works per workspace: check --workspace.)"
        )
    return _ancestors(latest, starts)[-1]


def _members(top: str, runs: dict[str, CheckpointRun], starts: dict[str, _Start]) -> set[str]:
    """``top``, and each run below it that changed files here with the runs between them."""
    members = {top}
    for run_id in runs:
        chain = _ancestors(run_id, starts)
        if top in chain:
            members.update(chain[: chain.index(top)])
    return members


def _ordered(top: str, members: set[str], runs: dict[str, CheckpointRun], starts: dict[str, _Start]) -> list[TreeRun]:
    """The members depth first, each run's children in the order they started."""

    def when(run_id: str) -> float:
        start = starts.get(run_id)
        return start.ts if start is not None else runs[run_id].created_at

    out: list[TreeRun] = []
    stack = [(top, 0)]
    while stack:
        run_id, depth = stack.pop()
        start, run = starts.get(run_id), runs.get(run_id)
        task = start.task if start is not None else None
        out.append(TreeRun(run_id, depth, task, run is not None, run is not None and run.undone))
        children = [m for m in members if m != top and (s := starts.get(m)) is not None and s.parent == run_id]
        stack += [(child, depth + 1) for child in sorted(children, key=when, reverse=True)]
    return out


def _unknown(run_id: str, root: Path, runs: dict[str, CheckpointRun], starts: dict[str, _Start]) -> str:
    tops = list(dict.fromkeys(_ancestors(r, starts)[-1] for r, run in runs.items() if not run.undone))
    listed = ", ".join(tops[:5]) if tops else "none"
    return (
        f"Unknown run {run_id!r}: no run with this id started or changed files in {root}. "
        f"Runs that can be undone here, newest first: {listed}. `chrysalis undo --list` shows the tree "
        "the next undo takes back (`--list --run ID` another's); check --workspace if the run worked elsewhere."
    )
