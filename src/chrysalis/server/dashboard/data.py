"""What the dashboard reads: the stores under ``$CHRYSALIS_HOME`` and the durable runtime's database.

Read-only by intent: each request opens the stores, reads, and closes them, so the dashboard never
holds a lock another process waits for and always shows what is on disk now. The runtime database
is not created when it does not exist yet (a SQLite URL whose file is missing means "no queue yet").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.config import Settings
from chrysalis.stores import Pattern, ProfileStats, RunSummary, Stores
from chrysalis.stores.evals import ModelStats

if TYPE_CHECKING:
    from chrysalis.evolve.archive import ModuleArchive
    from chrysalis.runtime.runs import RunRecord, RunStore

__all__ = ["ArchiveView", "DashboardData", "Decomposition", "QueueView"]

RECENT = 100
"""Most runs listed on the runs and queue pages."""


@dataclass(frozen=True)
class ArchiveView:
    """The newest version of one saved archive, or why it could not be read."""

    name: str
    version: int
    saved_at: float
    archive: ModuleArchive | None
    problem: str | None = None


@dataclass
class Decomposition:
    """One ``chrysalis decompose`` run rebuilt from its trace: each node as last reported, and how it ended."""

    run: RunSummary
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """``plan_node`` events by node id, the latest state of each, in the order the nodes appeared."""
    end: dict[str, Any] | None = None
    """The ``plan_end`` event, once there is one."""

    def children(self, parent: str | None) -> list[dict[str, Any]]:
        """The nodes under ``parent`` (``None``: the roots), in the order they appeared."""
        return [node for node in self.nodes.values() if node.get("parent_id") == parent]


@dataclass(frozen=True)
class QueueView:
    """The durable runs, or why the runtime database could not be read (``None`` runs: no queue yet)."""

    runs: list[RunRecord] | None
    problem: str | None = None


class DashboardData:
    """The queries behind the pages, over the stores of ``settings.home``."""

    def __init__(self, settings: Settings) -> None:
        """Read the stores under ``settings.home`` and the runtime database ``settings`` names."""
        self.settings = settings

    @contextmanager
    def _stores(self) -> Iterator[Stores]:
        with Stores.open(self.settings.home) as stores:
            yield stores

    def runs(self, limit: int = RECENT) -> list[RunSummary]:
        """The runs with the most recent events, newest first."""
        with self._stores() as stores:
            return stores.traces.runs(limit=limit)

    def run(self, run_id: str) -> tuple[RunSummary | None, list[dict[str, Any]]]:
        """One run's summary and every event it recorded, in order (``None``, [] when unknown)."""
        with self._stores() as stores:
            summary, events = stores.traces.summary(run_id), stores.traces.events(run_id)
        return summary, events

    def stats(self) -> tuple[list[ProfileStats], list[ModelStats]]:
        """The eval store's rows grouped as ``chrysalis stats`` shows them, and by (task type, model)."""
        with self._stores() as stores:
            return stores.evals.summary(), stores.evals.by_model()

    def archives(self) -> list[ArchiveView]:
        """The newest version of every saved module archive, newest first."""
        from chrysalis.evolve.archive import ModuleArchive

        views: list[ArchiveView] = []
        with self._stores() as stores:
            for name, version, saved_at in stores.archives.names():
                found = stores.archives.load(name, version)
                if found is None:  # deleted between the two reads
                    continue
                try:
                    archive = ModuleArchive.from_json(found.data, version=found.version)
                    # An empty archive has no thresholds: say so on the page rather than fail it.
                    _ = archive.thresholds
                except (KeyError, TypeError, ValueError) as exc:
                    views.append(ArchiveView(name, version, saved_at, None, f"cannot be shown: {exc}"))
                    continue
                views.append(ArchiveView(name, version, saved_at, archive))
        return views

    def decompositions(self, limit: int = 20) -> list[Decomposition]:
        """The latest decompositions with their plan trees, newest first."""
        found: list[Decomposition] = []
        with self._stores() as stores:
            for run in stores.traces.runs_with("plan_node", limit=limit):
                plan = Decomposition(run)
                for event in stores.traces.events(run.run_id):
                    if event.get("type") == "plan_node" and isinstance(event.get("node_id"), str):
                        plan.nodes[event["node_id"]] = event
                    elif event.get("type") == "plan_end":
                        plan.end = event
                found.append(plan)
        return found

    def patterns(self) -> list[Pattern]:
        """The decomposition pattern archive's elites, best first."""
        with self._stores() as stores:
            return stores.patterns.elites()

    def queue(self, limit: int = RECENT) -> QueueView:
        """The latest durable runs, newest first."""
        with self._runs() as (runs, problem):
            return QueueView(None if runs is None else runs.all(limit=limit), problem)

    def queued_run(self, run_id: str) -> tuple[RunRecord | None, list[dict[str, Any]], str | None]:
        """One durable run, its events in order, and a problem reading them (``None`` run: unknown)."""
        from chrysalis.errors import UsageError

        with self._runs() as (runs, problem):
            if runs is None:
                return None, [], problem
            try:
                record = runs.get(run_id)
            except UsageError:
                return None, [], None
            return record, [event for _, event in runs.events(run_id)], None

    @contextmanager
    def _runs(self) -> Iterator[tuple[RunStore | None, str | None]]:
        """The runtime's run store, or ``None`` with no database yet (and the problem, when it cannot be read)."""
        from sqlalchemy.exc import SQLAlchemyError

        from chrysalis.runtime.database import database_url, open_engine, unreachable
        from chrysalis.runtime.runs import RunStore

        url = database_url(self.settings)
        if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
            yield None, None
            return
        try:
            store = RunStore(open_engine(url))
        except SQLAlchemyError as exc:
            yield None, str(unreachable(url, exc))
            return
        with store:
            yield store, None
