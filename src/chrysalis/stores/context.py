"""The context store: an agent's session state, saved as numbered versions that are never overwritten.

Seed 000's ``Ctx`` holds what shapes the next model request: the system prompt (what evolution
improves), a free-form memory scratchpad, tool hints, the mode, the priority, the message history
and the summary that compaction left behind. Every save appends a new version with its time, so one
can ask how a context changed and roll back to any earlier version.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database

__all__ = ["Context", "ContextStore"]


@dataclass(frozen=True)
class Context:
    """One immutable snapshot of a session; change it with ``dataclasses.replace``."""

    system: str = ""
    """The system prompt; the main target of prompt evolution."""
    memory: str = ""
    """A scratchpad the agent may overwrite freely (facts, plans), unlike the append-only history."""
    tool_hints: str = ""
    """Advice on using the tools well, so the model need not rediscover it."""
    mode: str = "code"
    """Which tools are allowed: ask, architect, code or semantic."""
    priority: str = "best"
    """What matters now: fast, cheap, best, verbose, compact, or a sentence."""
    history: tuple[dict[str, Any], ...] = ()
    """The conversation so far, as JSON-able message dicts."""
    compacted_summary: str = ""
    """What compaction kept of the history it dropped."""
    version: int = 0
    """The stored version this came from; 0 for a context never saved."""

    def to_json(self) -> str:
        """The stored form: every field but ``version`` (the store assigns that), secrets redacted.

        A history holds the task and the model's answers as given; tool results in it are already
        redacted (``GatedTools.call``), and this catches the rest (``chrysalis.redact``).
        """
        data = asdict(self)
        del data["version"]
        data["history"] = list(self.history)
        return json.dumps(current_redactor().value(data), ensure_ascii=False, default=str)

    @classmethod
    def from_json(cls, text: str, version: int) -> Context:
        """Rebuild a context from its stored form; unknown keys (from a newer Chrysalis) are ignored."""
        data: dict[str, Any] = json.loads(text)
        known = {name for name in cls.__dataclass_fields__ if name != "version"}
        fields = {key: value for key, value in data.items() if key in known}
        fields["history"] = tuple(fields.get("history", ()))
        return cls(**fields, version=version)


class ContextStore:
    """Named, versioned contexts in the ``contexts`` table."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def load(self, name: str = "default", version: int | None = None) -> Context:
        """The latest version of ``name`` (or the given ``version``), or a fresh ``Context`` if none is stored.

        Raises:
            KeyError: ``version`` was given but that version of ``name`` does not exist.
        """
        if version is None:
            rows = self._db.read(
                "SELECT version, data FROM contexts WHERE name = ? ORDER BY version DESC LIMIT 1", (name,)
            )
            if not rows:
                return Context()
        else:
            rows = self._db.read("SELECT version, data FROM contexts WHERE name = ? AND version = ?", (name, version))
            if not rows:
                raise KeyError(f"context {name!r} has no version {version}")
        return Context.from_json(rows[0]["data"], int(rows[0]["version"]))

    def save(self, ctx: Context, name: str = "default") -> int:
        """Append ``ctx`` as the next version of ``name`` and return that version number.

        The number is chosen inside the write transaction, so two processes saving at once get
        different versions rather than one overwriting the other.
        """
        data = ctx.to_json()
        with self._db.write() as conn:
            row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM contexts WHERE name = ?", (name,)).fetchone()
            version = int(row[0]) + 1
            conn.execute(
                "INSERT INTO contexts (name, version, created_at, data) VALUES (?, ?, ?, ?)",
                (name, version, time.time(), data),
            )
        return version

    def versions(self, name: str = "default") -> list[tuple[int, float]]:
        """Every stored version of ``name`` as ``(version, created_at)``, oldest first."""
        rows = self._db.read("SELECT version, created_at FROM contexts WHERE name = ? ORDER BY version", (name,))
        return [(int(row["version"]), float(row["created_at"])) for row in rows]

    def names(self) -> list[str]:
        """The names of all stored contexts, sorted."""
        return [str(row["name"]) for row in self._db.read("SELECT DISTINCT name FROM contexts ORDER BY name")]
