"""The subscription store (seed 002): what each conversation asked to see fresh at the start of every task.

A subscription belongs to one stored session (``stores/sessions.py``) and names a workspace file, a
glob, or a memory query. Its id is a small number counted per session (1, 2, 3, ...) and never given
again in that session: removing one only marks it removed, so ``unsubscribe 2`` can never reach a
later subscription. A fork copies the rows with their ids, so the copy's ``[2]`` is the original's.

``seen`` is what the last task was shown of it: each source (a file of a glob, the query) and a
digest of its content, so the next task can say "changed since the last task" or "unchanged".
``None`` until it was first shown. What to read and how to show it is the agent layer's business
(``capabilities/subscriptions/following.py``); this layer only keeps the rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database

__all__ = ["Subscription", "SubscriptionKind", "SubscriptionStore"]

SubscriptionKind = Literal["file", "glob", "memory"]
MEMORY_PREFIX = "memory:"


@dataclass(frozen=True)
class Subscription:
    """One subscription of a conversation."""

    id: int
    kind: SubscriptionKind
    target: str
    """A workspace-relative path (``file``), a glob (``glob``), or the query (``memory``, without the prefix)."""
    created_at: float
    seen: Mapping[str, str] | None = None
    """Source -> digest of what the last task was shown; None until it was first shown."""

    @property
    def label(self) -> str:
        """How people and the model name it: the path or glob, or ``memory:QUERY``."""
        return MEMORY_PREFIX + self.target if self.kind == "memory" else self.target

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict: id, kind, target, label and when it was made."""
        return {
            "id": self.id,
            "kind": self.kind,
            "target": self.target,
            "label": self.label,
            "created_at": self.created_at,
        }


class SubscriptionStore:
    """The ``subscriptions`` table: one row per subscription of a session, removed ones kept as marked."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def add(
        self, session_id: str, kind: SubscriptionKind, target: str, *, prefer_id: int | None = None
    ) -> tuple[Subscription, bool]:
        """Subscribe session ``session_id`` to ``target``; returns it and whether it is new.

        The same kind and target already subscribed is returned as it is (not new). A new one gets
        ``prefer_id`` when the session never used that id, else the next id. Secrets in the target
        are redacted first (a memory query is text someone typed).

        Raises:
            ValueError: ``kind`` is not ``file``, ``glob`` or ``memory``, or ``target`` is empty.
        """
        if kind not in get_args(SubscriptionKind):
            raise ValueError(f"Unknown subscription kind {kind!r}: use one of {', '.join(get_args(SubscriptionKind))}.")
        target = current_redactor().text(target.strip())
        if not target:
            raise ValueError("The subscription target is empty.")
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT id FROM subscriptions WHERE session_id = ? AND kind = ? AND target = ? AND removed_at IS NULL",
                (session_id, kind, target),
            ).fetchone()
            if row is not None:
                chosen = int(row[0])
            else:
                used = {
                    int(r[0]) for r in conn.execute("SELECT id FROM subscriptions WHERE session_id = ?", (session_id,))
                }
                free = prefer_id is not None and prefer_id > 0 and prefer_id not in used
                chosen = prefer_id if free and prefer_id is not None else max(used, default=0) + 1
                conn.execute(
                    "INSERT INTO subscriptions (session_id, id, kind, target, created_at) VALUES (?, ?, ?, ?, ?)",
                    (session_id, chosen, kind, target, time.time()),
                )
        found = self.get(session_id, chosen)
        assert found is not None  # written just now, in this connection
        return found, row is None

    def get(self, session_id: str, subscription_id: int) -> Subscription | None:
        """The active subscription ``subscription_id`` of the session, or None."""
        rows = self._select("AND id = ?", (session_id, subscription_id))
        return rows[0] if rows else None

    def active(self, session_id: str) -> list[Subscription]:
        """The session's subscriptions (not removed), by id."""
        return self._select("ORDER BY id", (session_id,))

    def remove(self, session_id: str, subscription_id: int) -> Subscription | None:
        """Mark subscription ``subscription_id`` of the session removed; returns it, or None when there is none."""
        found = self.get(session_id, subscription_id)
        if found is not None:
            with self._db.write() as conn:
                conn.execute(
                    "UPDATE subscriptions SET removed_at = ? WHERE session_id = ? AND id = ?",
                    (time.time(), session_id, subscription_id),
                )
        return found

    def mark_seen(self, session_id: str, subscription_id: int, seen: Mapping[str, str]) -> None:
        """Record what a task was shown of the subscription: source -> digest."""
        with self._db.write() as conn:
            conn.execute(
                "UPDATE subscriptions SET seen = ? WHERE session_id = ? AND id = ?",
                (json.dumps(dict(seen), sort_keys=True), session_id, subscription_id),
            )

    def copy(self, source: str, dest: str) -> int:
        """Give session ``dest`` (a new fork) the subscriptions of ``source``, same ids; returns how many are active."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO subscriptions (session_id, id, kind, target, created_at, removed_at, seen) "
                "SELECT ?, id, kind, target, created_at, removed_at, seen FROM subscriptions WHERE session_id = ?",
                (dest, source),
            )
        return len(self.active(dest))

    def _select(self, tail: str, params: tuple[Any, ...]) -> list[Subscription]:
        rows = self._db.read(
            "SELECT id, kind, target, created_at, seen FROM subscriptions "
            f"WHERE session_id = ? AND removed_at IS NULL {tail}",
            params,
        )
        return [_subscription(row) for row in rows]


def _subscription(row: Any) -> Subscription:
    seen = json.loads(row["seen"]) if row["seen"] is not None else None
    return Subscription(
        id=int(row["id"]), kind=row["kind"], target=str(row["target"]), created_at=float(row["created_at"]), seen=seen
    )
