"""The trace store: every event of every run, kept twice for two kinds of reader.

``traces.jsonl`` is for humans and tools (``tail -f``, ``jq``, shipping elsewhere): one JSON object
per line, appended with a single ``os.write`` under ``O_APPEND``, so lines from two processes never
interleave. The ``traces`` table is for queries (one run's events, the latest runs), and a small
``trace_runs`` table keeps a running summary per run so listing recent runs never scans every event.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chrysalis.errors import ConfigError
from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database

__all__ = ["RunSummary", "TraceStore"]


@dataclass(frozen=True)
class RunSummary:
    """What the traces say about one run."""

    run_id: str
    started_at: float
    ended_at: float
    """The time of the run's latest event."""
    events: int
    task: str | None
    """From the run's ``start`` event, if one was recorded."""
    model: str | None
    status: str
    """``final`` (answered, or a decomposition's ``plan_end``), ``error`` (stopped) or ``unfinished``
    (still going, or killed)."""
    success: bool | None
    """From the ``final`` (or ``plan_end``) event; ``None`` when the run has none."""
    cost_usd: float | None


class TraceStore:
    """Append-only run events in ``traces.jsonl`` and the ``traces`` table."""

    def __init__(self, db: Database, jsonl_path: Path) -> None:
        """Use ``db`` and open ``jsonl_path`` for appending (created if missing, private to the user).

        Raises:
            ConfigError: the trace file cannot be opened for writing.
        """
        self._db = db
        self.jsonl_path = jsonl_path
        try:
            self._fd: int | None = os.open(jsonl_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise ConfigError(
                f"Cannot open the trace file {jsonl_path} for appending: {exc.strerror}. "
                "Fix its permissions, or set CHRYSALIS_HOME to a folder you can write."
            ) from exc

    def record(self, run_id: str, event: Mapping[str, Any]) -> None:
        """Store one event of ``run_id``; ``event`` is a JSON-able dict with a ``type`` key.

        Values JSON cannot hold (paths, datetimes) are stored as their ``str``. The event's own
        ``ts`` is kept when present, otherwise the current time is used. Secrets are redacted first
        (``chrysalis.redact``): a task or an answer may hold a key, even though tool results are
        redacted before the model sees them.

        Raises:
            ValueError: ``event`` has no string ``type`` (a bug in the caller).
        """
        kind = event.get("type")
        if not isinstance(kind, str) or not kind:
            raise ValueError(f"a trace event needs a 'type' string, got keys {sorted(event)}")
        event = current_redactor().value(dict(event))
        raw_ts = event.get("ts")
        ts = float(raw_ts) if isinstance(raw_ts, int | float) and not isinstance(raw_ts, bool) else time.time()
        body = {key: value for key, value in event.items() if key not in ("run_id", "ts")}
        data = json.dumps({"run_id": run_id, "ts": ts, **body}, ensure_ascii=False, default=str)
        with self._db.write() as conn:
            cursor = conn.execute(
                "INSERT INTO traces (run_id, ts, type, data) VALUES (?, ?, ?, ?)", (run_id, ts, kind, data)
            )
            self._update_run(conn, run_id, ts, int(cursor.lastrowid or 0), event)
        self._append_line(data)

    @staticmethod
    def _update_run(conn: sqlite3.Connection, run_id: str, ts: float, event_id: int, event: Mapping[str, Any]) -> None:
        """Keep the per-run summary current, inside the same transaction as the event itself."""
        conn.execute(
            "INSERT INTO trace_runs (run_id, started_at, ended_at, events, last_id) VALUES (?, ?, ?, 1, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET started_at = MIN(started_at, excluded.started_at),"
            " ended_at = MAX(ended_at, excluded.ended_at), events = events + 1, last_id = excluded.last_id",
            (run_id, ts, ts, event_id),
        )
        kind = event["type"]
        if kind == "start":
            conn.execute(
                "UPDATE trace_runs SET task = ?, model = ? WHERE run_id = ?",
                (_opt_str(event.get("task")), _opt_str(event.get("model")), run_id),
            )
        elif kind == "final":
            cost = event.get("cost_usd")
            conn.execute(
                "UPDATE trace_runs SET status = 'final', success = ?, cost_usd = ? WHERE run_id = ?",
                (int(bool(event.get("success"))), float(cost) if isinstance(cost, int | float) else None, run_id),
            )
        elif kind == "plan_end":  # a decomposition's end: it records no final of its own
            conn.execute(
                "UPDATE trace_runs SET status = 'final', success = ? WHERE run_id = ?",
                (int(bool(event.get("success"))), run_id),
            )
        elif kind == "error":
            conn.execute("UPDATE trace_runs SET status = 'error', success = 0 WHERE run_id = ?", (run_id,))

    def _append_line(self, data: str) -> None:
        """Append one line with one ``write`` call: ``O_APPEND`` makes it land whole at the end."""
        if self._fd is None:
            raise ValueError(f"the trace store for {self.jsonl_path} is closed")
        line = (data + "\n").encode("utf-8")
        written = os.write(self._fd, line)
        if written < len(line):  # Only on a full disk or a signal; finish the line rather than leave it torn.
            os.write(self._fd, line[written:])

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """Every event of ``run_id`` in the order recorded, each with its ``run_id`` and ``ts``."""
        rows = self._db.read("SELECT data FROM traces WHERE run_id = ? ORDER BY id", (run_id,))
        return [json.loads(row["data"]) for row in rows]

    def runs(self, limit: int = 20) -> list[RunSummary]:
        """The ``limit`` runs with the most recent events, newest first."""
        rows = self._db.read("SELECT * FROM trace_runs ORDER BY last_id DESC LIMIT ?", (limit,))
        return [_summary(row) for row in rows]

    def runs_with(self, kind: str, limit: int = 20) -> list[RunSummary]:
        """The ``limit`` most recent runs that recorded an event of type ``kind``, newest first.

        ``plan_node`` finds the decompositions (the dashboard draws their trees); the events are
        scanned by type, which is fine for a viewer and keeps the write path free of another index.
        """
        rows = self._db.read(
            "SELECT * FROM trace_runs WHERE run_id IN (SELECT run_id FROM traces WHERE type = ?)"
            " ORDER BY last_id DESC LIMIT ?",
            (kind, limit),
        )
        return [_summary(row) for row in rows]

    def summary(self, run_id: str) -> RunSummary | None:
        """What the traces say about ``run_id``, or ``None`` when it recorded nothing."""
        rows = self._db.read("SELECT * FROM trace_runs WHERE run_id = ?", (run_id,))
        return _summary(rows[0]) if rows else None

    def count(self) -> int:
        """How many events are stored."""
        return int(self._db.read("SELECT COUNT(*) AS n FROM traces")[0]["n"])

    def close(self) -> None:
        """Close the trace file; the database is closed by its owner."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _summary(row: sqlite3.Row) -> RunSummary:
    return RunSummary(
        run_id=str(row["run_id"]),
        started_at=float(row["started_at"]),
        ended_at=float(row["ended_at"]),
        events=int(row["events"]),
        task=row["task"],
        model=row["model"],
        status=str(row["status"]),
        success=None if row["success"] is None else bool(row["success"]),
        cost_usd=None if row["cost_usd"] is None else float(row["cost_usd"]),
    )


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)
