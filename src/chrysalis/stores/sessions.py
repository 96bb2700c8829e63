"""The session store: each conversation with the agent, its messages saved as they happen.

A session is what ``chrysalis run --continue``, ``--resume ID`` and ``--fork ID`` pick up: one row
of metadata (workspace, first task, steps, cost, when it was last used, the session it was forked
from) and its messages in order. Messages are appended after every step of a run, so a run stopped
by a limit, an error or Ctrl-C loses at most the step it was in. Appending (rather than saving the
whole history again each step) keeps a long conversation's writes proportional to what is new.
A shorter history than the one stored (``/compact``) replaces the stored one.

Messages are stored as the JSON-able dicts pydantic-ai's ``ModelMessagesTypeAdapter`` makes; this
layer does not import pydantic-ai, so it neither knows nor cares what is inside them (secrets are
redacted on the way in, as the context store does).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database

__all__ = ["SessionInfo", "SessionStore", "UnknownSession", "new_id"]

TITLE_CHARS = 200
"""How much of the first task is kept as the session's title."""


class UnknownSession(LookupError):
    """No session has that id (or the prefix given matches none, or several)."""


@dataclass(frozen=True)
class SessionInfo:
    """One conversation: where, what it began with, what it has cost so far."""

    id: str
    workspace: str
    title: str
    """The first task, cut to ``TITLE_CHARS``."""
    created_at: float
    updated_at: float
    runs: int
    steps: int
    cost_usd: float
    messages: int
    forked_from: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields ``chrysalis sessions --json`` prints (times as ISO 8601 in UTC)."""
        return {
            "id": self.id,
            "workspace": self.workspace,
            "task": self.title,
            "runs": self.runs,
            "steps": self.steps,
            "cost_usd": round(self.cost_usd, 6),
            "messages": self.messages,
            "created": _iso(self.created_at),
            "updated": _iso(self.updated_at),
            "forked_from": self.forked_from,
        }


class SessionStore:
    """Sessions and their messages in the ``sessions`` and ``session_messages`` tables."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def create(
        self, workspace: Path | str, title: str, *, forked_from: str | None = None, session_id: str | None = None
    ) -> SessionInfo:
        """A new, empty session in ``workspace`` that began with the task ``title`` (its id: ``session_id`` or new)."""
        now = time.time()
        session_id = session_id or new_id()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, workspace, title, created_at, updated_at, runs, steps, cost_usd, "
                "forked_from) VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?)",
                (session_id, str(workspace), current_redactor().value(_title(title)), now, now, forked_from),
            )
        return self.get(session_id)

    def get(self, ref: str) -> SessionInfo:
        """The session whose id is ``ref``, or begins with it (as git takes a commit's prefix).

        Raises:
            UnknownSession: no session matches, or the prefix matches several; the message says which.
        """
        ref = ref.strip()
        rows = self._select("WHERE s.id = ?", (ref,)) if ref else []
        if not rows and ref:
            rows = self._select("WHERE s.id LIKE ? ESCAPE '\\'", (_like_prefix(ref),))
        if len(rows) == 1:
            return rows[0]
        if not rows:
            raise UnknownSession(f"no session {ref!r}")
        raise UnknownSession(
            f"{ref!r} matches {len(rows)} sessions ({', '.join(r.id for r in rows[:5])}); give more of the id"
        )

    def latest(self, workspace: Path | str) -> SessionInfo | None:
        """The session of ``workspace`` used last, or None when it has none."""
        rows = self._select("WHERE s.workspace = ? ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1", (str(workspace),))
        return rows[0] if rows else None

    def recent(self, workspace: Path | str | None = None, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, the most recently used first; only ``workspace``'s when given."""
        where, params = ("WHERE s.workspace = ?", [str(workspace)]) if workspace is not None else ("", [])
        tail = " LIMIT ?" if limit is not None else ""
        return self._select(
            f"{where} ORDER BY s.updated_at DESC, s.rowid DESC{tail}",
            (*params, *([limit] if limit is not None else [])),
        )

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        """The session's messages in order, as stored."""
        rows = self._db.read("SELECT data FROM session_messages WHERE session_id = ? ORDER BY seq", (session_id,))
        return [json.loads(row["data"]) for row in rows]

    def save_messages(self, session_id: str, messages: Sequence[dict[str, Any]], *, stored: int) -> int:
        """Make the stored messages equal ``messages``, given that the first ``stored`` of them are stored already.

        Only the messages after ``stored`` are written; a shorter list (a compacted history) replaces
        the stored one. Returns how many messages are stored now (the next call's ``stored``).
        """
        redactor = current_redactor()
        start = max(0, stored - 1) if len(messages) >= stored else 0  # the last one again: it may have grown
        with self._db.write() as conn:
            conn.execute("DELETE FROM session_messages WHERE session_id = ? AND seq >= ?", (session_id, start))
            conn.executemany(
                "INSERT INTO session_messages (session_id, seq, data) VALUES (?, ?, ?)",
                [
                    (session_id, seq, json.dumps(redactor.value(message), ensure_ascii=False, default=str))
                    for seq, message in enumerate(messages[start:], start)
                ],
            )
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id))
        return len(messages)

    def add_run(self, session_id: str, *, steps: int, cost_usd: float) -> None:
        """Count one more run of the session, with the steps and USD it took."""
        with self._db.write() as conn:
            conn.execute(
                "UPDATE sessions SET runs = runs + 1, steps = steps + ?, cost_usd = cost_usd + ?, updated_at = ? "
                "WHERE id = ?",
                (steps, cost_usd, time.time(), session_id),
            )

    def fork(self, source: str, workspace: Path | str, title: str | None = None) -> SessionInfo:
        """A new session that starts with a copy of ``source``'s messages (``source`` itself is left as it is).

        Raises:
            UnknownSession: ``source`` names no session.
        """
        original = self.get(source)
        forked = self.create(workspace, title or original.title, forked_from=original.id)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO session_messages (session_id, seq, data) "
                "SELECT ?, seq, data FROM session_messages WHERE session_id = ?",
                (forked.id, original.id),
            )
        return self.get(forked.id)

    def _select(self, tail: str, params: Sequence[Any]) -> list[SessionInfo]:
        rows = self._db.read(
            "SELECT s.id, s.workspace, s.title, s.created_at, s.updated_at, s.runs, s.steps, s.cost_usd, "
            "s.forked_from, (SELECT COUNT(*) FROM session_messages m WHERE m.session_id = s.id) AS messages "
            f"FROM sessions s {tail}",
            params,
        )
        return [_info(row) for row in rows]


def new_id() -> str:
    """A fresh session id: 12 hex digits (a unique prefix of it is enough to name the session)."""
    return uuid.uuid4().hex[:12]


def _info(r: Any) -> SessionInfo:
    """A ``sessions`` row (with its message count) as a ``SessionInfo``."""
    return SessionInfo(
        id=str(r["id"]),
        workspace=str(r["workspace"]),
        title=str(r["title"]),
        created_at=float(r["created_at"]),
        updated_at=float(r["updated_at"]),
        runs=int(r["runs"]),
        steps=int(r["steps"]),
        cost_usd=float(r["cost_usd"]),
        messages=int(r["messages"]),
        forked_from=r["forked_from"],
    )


def _title(task: str) -> str:
    """The first task on one line, cut to ``TITLE_CHARS``."""
    line = " ".join(task.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def _like_prefix(prefix: str) -> str:
    """``prefix%`` for ``LIKE``, with ``%``, ``_`` and the escape character itself escaped."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))
