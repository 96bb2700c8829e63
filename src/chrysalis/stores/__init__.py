"""Persistent state: contexts, sessions, evals, traces, checkpoints, memories, triples and subscriptions.

All of it lives in ``$CHRYSALIS_HOME``.

``Stores.open(home)`` is the one entry point: it opens ``chrysalis.db`` (SQLite, write-ahead
logging, safe for several processes at once) and ``traces.jsonl``, and hands out one store per
concern. They share a single connection, so one ``Stores`` per process is the rule.

    with Stores.open(settings.home) as stores:
        stores.traces.record(run_id, event.to_json())
        stores.checkpoints.snapshot(run_id, workspace, path)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from chrysalis.config import DB_FILENAME, TRACES_FILENAME
from chrysalis.errors import ConfigError
from chrysalis.stores.archives import ArchiveStore, ArchiveVersion, CompileCache
from chrysalis.stores.checkpoints import (
    MAX_CHECKPOINT_BYTES,
    CheckpointRun,
    CheckpointStore,
    CheckpointTooLarge,
    SnapshotUnavailable,
    UndoReport,
)
from chrysalis.stores.context import Context, ContextStore
from chrysalis.stores.db import Database
from chrysalis.stores.evals import EvalStore, ProfileStats
from chrysalis.stores.knowledge import KnowledgeStore, Triple
from chrysalis.stores.memory import Memory, MemoryHit, MemoryStore, Recall
from chrysalis.stores.patterns import Pattern, PatternStore
from chrysalis.stores.sessions import SessionInfo, SessionStore, UnknownSession
from chrysalis.stores.subscriptions import Subscription, SubscriptionStore
from chrysalis.stores.traces import RunSummary, TraceStore

__all__ = [
    "DB_FILENAME",
    "MAX_CHECKPOINT_BYTES",
    "TRACES_FILENAME",
    "ArchiveStore",
    "ArchiveVersion",
    "CheckpointRun",
    "CheckpointStore",
    "CheckpointTooLarge",
    "CompileCache",
    "Context",
    "ContextStore",
    "EvalStore",
    "KnowledgeStore",
    "Memory",
    "MemoryHit",
    "MemoryStore",
    "Pattern",
    "PatternStore",
    "ProfileStats",
    "Recall",
    "RunSummary",
    "SessionInfo",
    "SessionStore",
    "SnapshotUnavailable",
    "Stores",
    "Subscription",
    "SubscriptionStore",
    "TraceStore",
    "Triple",
    "UndoReport",
    "UnknownSession",
]


@dataclass
class Stores:
    """Every store of one ``$CHRYSALIS_HOME``, over one database connection; close it when done."""

    db: Database
    context: ContextStore
    evals: EvalStore
    traces: TraceStore
    checkpoints: CheckpointStore
    archives: ArchiveStore
    compile_cache: CompileCache
    patterns: PatternStore
    sessions: SessionStore
    memory: MemoryStore
    """Ranks by words until a caller attaches an embedder (``with_embedder``); embedders live in ``chrysalis.llm``."""
    knowledge: KnowledgeStore
    """The knowledge graph's triples (semantic mode); queried through a short-lived rdflib graph."""
    subscriptions: SubscriptionStore
    """What each session asked to see fresh at every task (``capabilities/subscriptions/`` reads it)."""

    @classmethod
    def open(cls, home: Path) -> Stores:
        """Create ``home`` if needed and open its database and trace file.

        Raises:
            ConfigError: ``home`` cannot be created, or its database or trace file is unusable;
                the message names the file and how to fix it.
        """
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Cannot create the Chrysalis home folder {home}: {exc.strerror}. "
                "Set CHRYSALIS_HOME to a folder you can write."
            ) from exc
        db = Database(home / DB_FILENAME)
        try:
            traces = TraceStore(db, home / TRACES_FILENAME)
        except ConfigError:
            db.close()
            raise
        return cls(
            db=db,
            context=ContextStore(db),
            evals=EvalStore(db),
            traces=traces,
            checkpoints=CheckpointStore(db, home),
            archives=ArchiveStore(db),
            compile_cache=CompileCache(db),
            patterns=PatternStore(db),
            sessions=SessionStore(db),
            memory=MemoryStore(db),
            knowledge=KnowledgeStore(db),
            subscriptions=SubscriptionStore(db),
        )

    def close(self) -> None:
        """Close the trace file and the database connection."""
        self.traces.close()
        self.db.close()

    def __enter__(self) -> Stores:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
