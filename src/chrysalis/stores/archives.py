"""Module archives and the compile cache, in ``chrysalis.db``.

``ArchiveStore`` keeps every saved version of a named archive (compile results are versioned like
contexts: a new compile adds version N+1, an old one stays for inspection and rollback). The store
holds JSON documents; what is inside them is the evolve layer's business.

``CompileCache`` is what makes an interrupted compile resumable: each finished rollout or proposal
is written under the compile's key as soon as it is known, and a rerun with the same inputs and seed
replays those instead of calling the model again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from chrysalis.stores.db import Database

__all__ = ["ArchiveStore", "ArchiveVersion", "CompileCache"]


@dataclass(frozen=True)
class ArchiveVersion:
    """One saved version of a named archive."""

    name: str
    version: int
    created_at: float
    data: dict[str, Any]


class ArchiveStore:
    """Versioned JSON documents in the ``module_archives`` table."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def save(self, name: str, data: dict[str, Any]) -> int:
        """Store ``data`` as the next version of ``name`` and return that version (1 for the first)."""
        text = json.dumps(data, ensure_ascii=False)
        with self._db.write() as conn:
            row = conn.execute("SELECT MAX(version) FROM module_archives WHERE name = ?", (name,)).fetchone()
            version = int(row[0] or 0) + 1
            conn.execute(
                "INSERT INTO module_archives (name, version, created_at, data) VALUES (?, ?, ?, ?)",
                (name, version, time.time(), text),
            )
        return version

    def load(self, name: str, version: int | None = None) -> ArchiveVersion | None:
        """The newest version of ``name`` (or the given one), or ``None`` when there is none."""
        if version is None:
            rows = self._db.read("SELECT * FROM module_archives WHERE name = ? ORDER BY version DESC LIMIT 1", (name,))
        else:
            rows = self._db.read("SELECT * FROM module_archives WHERE name = ? AND version = ?", (name, version))
        if not rows:
            return None
        row = rows[0]
        return ArchiveVersion(str(row["name"]), int(row["version"]), float(row["created_at"]), json.loads(row["data"]))

    def names(self) -> list[tuple[str, int, float]]:
        """Every archive name with its newest version and when that was saved, newest first."""
        rows = self._db.read(
            "SELECT name, MAX(version) AS version, MAX(created_at) AS at FROM module_archives"
            " GROUP BY name ORDER BY at DESC"
        )
        return [(str(r["name"]), int(r["version"]), float(r["at"])) for r in rows]


class CompileCache:
    """Results of finished compile steps, keyed by the compile's key and the step's own key."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def get(self, run_key: str, item: str) -> Any | None:
        """The stored value, or ``None`` when this step has not finished before."""
        rows = self._db.read("SELECT data FROM compile_cache WHERE run_key = ? AND item = ?", (run_key, item))
        return json.loads(rows[0]["data"]) if rows else None

    def put(self, run_key: str, item: str, value: Any) -> None:
        """Record a finished step (replacing an older record of the same step)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO compile_cache (run_key, item, created_at, data) VALUES (?, ?, ?, ?)",
                (run_key, item, time.time(), json.dumps(value, ensure_ascii=False)),
            )

    def count(self, run_key: str) -> int:
        """How many steps of this compile are recorded."""
        return int(self._db.read("SELECT COUNT(*) AS n FROM compile_cache WHERE run_key = ?", (run_key,))[0]["n"])
