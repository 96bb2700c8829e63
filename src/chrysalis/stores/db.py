"""One SQLite connection shared by every store, with the settings that make concurrent use safe.

Several agents (a REPL, a one-shot run, workers) may write to the same ``chrysalis.db`` at once.
SQLite handles that when every connection uses write-ahead logging, waits for locks instead of
failing (``busy_timeout``), and keeps write transactions short and ``IMMEDIATE`` (so a writer takes
the lock up front rather than failing half-way when it upgrades from a read). This module is the
only place that knows those rules; the stores call ``Database.write()`` and ``Database.read()``.

The schema moves forward through numbered migrations recorded in ``schema_version``, so an old
database is upgraded in place and a database from a newer Chrysalis is refused with a clear message.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chrysalis.errors import ConfigError
from chrysalis.stores.vectors import VectorSupport, connect

__all__ = ["BUSY_TIMEOUT_S", "MIGRATIONS", "SCHEMA_VERSION", "Database"]

BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process's lock before giving up."""

# Migration i (0-based) takes the schema from version i to version i + 1. Append; never edit.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE contexts (
            name TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (name, version))""",
        """CREATE TABLE evals (
            id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, profile TEXT NOT NULL, task_type TEXT NOT NULL,
            model TEXT NOT NULL, success INTEGER NOT NULL, duration_ms REAL NOT NULL, cost_usd REAL NOT NULL,
            input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, created_at REAL NOT NULL)""",
        "CREATE INDEX evals_task_type ON evals (task_type)",
        """CREATE TABLE traces (
            id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, ts REAL NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)""",
        "CREATE INDEX traces_run ON traces (run_id, id)",
        """CREATE TABLE trace_runs (
            run_id TEXT PRIMARY KEY, started_at REAL NOT NULL, ended_at REAL NOT NULL, events INTEGER NOT NULL,
            last_id INTEGER NOT NULL, task TEXT, model TEXT, status TEXT NOT NULL DEFAULT 'unfinished',
            success INTEGER, cost_usd REAL)""",
        "CREATE INDEX trace_runs_recent ON trace_runs (last_id)",
        """CREATE TABLE checkpoint_runs (
            run_id TEXT NOT NULL, workspace TEXT NOT NULL, created_at REAL NOT NULL, undone_at REAL,
            PRIMARY KEY (run_id, workspace))""",
        "CREATE INDEX checkpoint_runs_workspace ON checkpoint_runs (workspace, created_at)",
        """CREATE TABLE checkpoint_files (
            run_id TEXT NOT NULL, workspace TEXT NOT NULL, path TEXT NOT NULL, existed INTEGER NOT NULL,
            content BLOB, mode INTEGER, created_at REAL NOT NULL,
            PRIMARY KEY (run_id, workspace, path))""",
    ),
    (
        """CREATE TABLE module_archives (
            name TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (name, version))""",
        """CREATE TABLE compile_cache (
            run_key TEXT NOT NULL, item TEXT NOT NULL, created_at REAL NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (run_key, item))""",
    ),
    (
        # The topmost folder a created file's path lacked (relative), so undo removes the folders too.
        "ALTER TABLE checkpoint_files ADD COLUMN new_dir TEXT",
    ),
    (
        # One row per shell command or commit: the shadow git trees of the workspace before and after
        # it (stores/shadow.py), and the project's HEAD around it, so undo covers what commands change.
        """CREATE TABLE checkpoint_commands (
            run_id TEXT NOT NULL, workspace TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
            before_tree TEXT NOT NULL, after_tree TEXT, head_before TEXT, head_after TEXT,
            created_at REAL NOT NULL, PRIMARY KEY (run_id, workspace, seq))""",
    ),
    (
        # Seed 001's archive of decomposition patterns: one elite per (task type, phenotype bin).
        """CREATE TABLE decomposition_patterns (
            task_type TEXT NOT NULL, bin TEXT NOT NULL, task TEXT NOT NULL, priority TEXT NOT NULL,
            steps TEXT NOT NULL, phenotype TEXT NOT NULL, score REAL NOT NULL, created_at REAL NOT NULL,
            PRIMARY KEY (task_type, bin))""",
    ),
    (
        # Conversations (stores/sessions.py): one row each, and their messages appended after every step.
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY, workspace TEXT NOT NULL, title TEXT NOT NULL, created_at REAL NOT NULL,
            updated_at REAL NOT NULL, runs INTEGER NOT NULL, steps INTEGER NOT NULL, cost_usd REAL NOT NULL,
            forked_from TEXT)""",
        "CREATE INDEX sessions_workspace ON sessions (workspace, updated_at)",
        """CREATE TABLE session_messages (
            session_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq))""",
    ),
    (
        # Seed 002's memories (stores/memory.py): one text per scope; ids never reused (AUTOINCREMENT), so
        # nothing stale can point at a new memory. The FTS5 index follows the table through the triggers.
        """CREATE TABLE memories (
            id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, text TEXT NOT NULL, tags TEXT NOT NULL,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, UNIQUE (scope, text))""",
        """CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, tags, content='memories', content_rowid='id', tokenize='porter unicode61')""",
        """CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags); END""",
        """CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
            END""",
        """CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
            INSERT INTO memories_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags); END""",
        # One float32 vector per memory, from the embedder named by `space`; a plain table (not a vec0 one),
        # so the file stays usable where sqlite-vec cannot load.
        """CREATE TABLE memory_vectors (
            memory_id INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE, space TEXT NOT NULL,
            vector BLOB NOT NULL)""",
    ),
    (
        # Seed 000's knowledge graph (stores/knowledge.py): triples per scope, as memories are. Subject and
        # predicate are IRIs; the object is an IRI, or a plain text when `literal` is 1. Ids are never reused.
        # IF NOT EXISTS: a branch's database that made the table under another number upgrades too.
        """CREATE TABLE IF NOT EXISTS triples (
            id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, subject TEXT NOT NULL,
            predicate TEXT NOT NULL, object TEXT NOT NULL, literal INTEGER NOT NULL, created_at REAL NOT NULL,
            UNIQUE (scope, subject, predicate, object, literal))""",
    ),
    (
        # Seed 002's subscriptions (stores/subscriptions.py): per session, ids counted per session and never
        # given twice (a removed one stays, marked); `seen` is what the last task was shown (JSON).
        # IF NOT EXISTS: a branch's database that made the table under another number upgrades too.
        """CREATE TABLE IF NOT EXISTS subscriptions (
            session_id TEXT NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL,
            created_at REAL NOT NULL, removed_at REAL, seen TEXT, PRIMARY KEY (session_id, id))""",
    ),
    (
        # A decomposition ends with `plan_end`, not `final`; its run was left 'unfinished' before the trace
        # store learned that. Mark the ones already recorded as their last plan_end says.
        """UPDATE trace_runs SET status = 'final', success = (
            SELECT json_extract(t.data, '$.success') = 1 FROM traces t
            WHERE t.run_id = trace_runs.run_id AND t.type = 'plan_end' ORDER BY t.id DESC LIMIT 1)
        WHERE status = 'unfinished' AND run_id IN (SELECT run_id FROM traces WHERE type = 'plan_end')""",
    ),
    (
        # How each archived pattern fared (issue 35): its own run, then each run that replayed it. Rows from
        # before have no record (0 and 0: unknown, not failed).
        "ALTER TABLE decomposition_patterns ADD COLUMN successes INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE decomposition_patterns ADD COLUMN failures INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE decomposition_patterns ADD COLUMN total_seconds REAL NOT NULL DEFAULT 0",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


_ADD_COLUMN = re.compile(r"^ALTER TABLE (\w+) ADD COLUMN (\w+)", re.IGNORECASE)


def _adds_existing_column(conn: sqlite3.Connection, statement: str) -> bool:
    """``ALTER TABLE t ADD COLUMN c`` where ``t`` has ``c`` already: SQLite has no ``IF NOT EXISTS`` for it.

    Like the tables' ``IF NOT EXISTS``, this lets a database whose version was set back (or a
    branch's, numbered otherwise) run a migration again.
    """
    match = _ADD_COLUMN.match(statement)
    if match is None:
        return False
    return any(row[1] == match[2] for row in conn.execute(f"PRAGMA table_info({match[1]})"))


def _move_aside_hint(path: Path) -> str:
    return f"Move it aside (for example `mv {path} {path}.bad`) and Chrysalis will create a fresh one."


def _newer_schema_message(path: Path, found: int) -> str:
    return (
        f"{path} has schema version {found}, but this Chrysalis knows versions up to {SCHEMA_VERSION}: "
        f"a newer chrysalis-forge wrote it. Upgrade chrysalis-forge, or move the file aside "
        f"(for example `mv {path} {path}.bad`) to start with a fresh one."
    )


class Database:
    """A thread-safe wrapper around one ``sqlite3`` connection to ``chrysalis.db``.

    One lock serialises use of the connection, so an agent that calls the stores from a worker
    thread cannot interleave two transactions on the same connection.
    """

    def __init__(self, path: Path) -> None:
        """Open (or create) the database at ``path`` and bring its schema up to date.

        Raises:
            ConfigError: the file is not a SQLite database, is damaged, cannot be opened, or was
                written by a newer Chrysalis. The message names the file and how to fix it.
        """
        self.path = path
        self._lock = threading.RLock()
        try:
            self._conn, vectors = connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise ConfigError(f"Cannot open the Chrysalis database {path}: {exc}. {_move_aside_hint(path)}") from exc
        self.vectors: VectorSupport = vectors
        """Whether sqlite-vec is loaded in this connection (the memory store ranks vectors with it), or why not."""
        try:
            self._configure()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise ConfigError(f"{path} is not a usable Chrysalis database ({exc}). {_move_aside_hint(path)}") from exc
        except ConfigError:
            self._conn.close()
            raise

    def _configure(self) -> None:
        """Set the pragmas every connection needs; WAL is retried because switching to it needs a brief lock."""
        self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        if str(mode).lower() != "wal":
            raise sqlite3.DatabaseError(f"could not switch to write-ahead logging (journal mode is {mode!r})")
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        """Apply the migrations this database has not seen yet, in one transaction."""
        with self.write() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            current = 0 if row is None else int(row[0])
            if current > SCHEMA_VERSION:
                raise ConfigError(_newer_schema_message(self.path, current))
            for statements in MIGRATIONS[current:]:
                for statement in statements:
                    if not _adds_existing_column(conn, statement):
                        conn.execute(statement)
            if row is None:
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif current < SCHEMA_VERSION:
                conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction: ``BEGIN IMMEDIATE`` takes the write lock up front, waiting if needed.

        Commits on success and rolls back on any exception, so a Ctrl-C mid-write leaves no half row.
        """
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run one query and return all its rows (each readable by column name)."""
        with self._lock:
            cursor = self._conn.execute(sql, params)
            cursor.row_factory = sqlite3.Row
            return list(cursor.fetchall())

    def integrity_check(self) -> str:
        """SQLite's own check of the whole file: ``"ok"`` when nothing is damaged."""
        rows = self.read("PRAGMA integrity_check")
        return "; ".join(str(row[0]) for row in rows)

    def close(self) -> None:
        """Close the connection; later calls fail with ``sqlite3.ProgrammingError``."""
        with self._lock:
            self._conn.close()
