"""Memories (seed 002): short notes the agent keeps across runs, found again by words and by meaning.

A memory is one fact, decision or preference in a scope: ``global`` (every workspace) or
``workspace:/abs/path`` (one project). ``remember`` keeps a text once per scope (the same text
again only refreshes it and adds its tags), ``recall`` ranks the memories of some scopes against a
query, ``forget`` deletes one, ``list_memories`` shows them newest first.

Ranking is hybrid where it can be:

- words: an FTS5 index (porter-stemmed, kept in step with the table by triggers) ranked by BM25.
  The query is cut into words and each is quoted, so nothing a user or model types is FTS5 syntax
  (``"``, ``AND``, ``*``, ``(`` are just text), and the words are OR-ed: a question finds notes
  that share some of its words, best first.
- meaning: each memory's vector, from the embedder the caller attaches (``with_embedder``; the
  stores layer computes none itself), kept as float32 in ``memory_vectors`` and ranked by
  sqlite-vec's ``vec_distance_cosine`` (``stores/vectors.py``).

The two lists are fused by reciprocal rank, ``sum(1 / (60 + rank))``. Without an embedder, without
sqlite-vec in this connection, or when the embedder fails, recall ranks by words alone and says so
(``Recall.ranking``, ``Recall.note``).

Each vector is stored with its embedder's ``name``, its vector space (model and length): a query is
compared only with vectors of its own space, so a memory embedded by another embedder, or kept while
the embedder failed (``keep`` says so), is found by its words until ``reindex`` gives it a vector.
"""

from __future__ import annotations

import re
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from chrysalis.errors import ModelError
from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database

__all__ = [
    "GLOBAL_SCOPE",
    "MAX_K",
    "MAX_TAGS",
    "MAX_TEXT_CHARS",
    "Kept",
    "Memory",
    "MemoryEmbedder",
    "MemoryHit",
    "MemoryStore",
    "Ranking",
    "Recall",
    "check_scope",
    "workspace_scope",
]

GLOBAL_SCOPE = "global"
_WORKSPACE_PREFIX = "workspace:"
MAX_TEXT_CHARS = 2000
"""A memory is a note, not a document: one fact or decision in a sentence or two."""
MAX_TAGS = 10
MAX_TAG_CHARS = 40
MAX_K = 50
"""Most memories one recall returns."""
RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al.): a rank r counts 1 / (60 + r)."""
MIN_SIMILARITY = 0.2
"""Below this cosine a memory is not a match by meaning (the lexical embedder puts unrelated notes near 0)."""
_MAX_QUERY_WORDS = 32
_WORD = re.compile(r"\w+")
_TAG = re.compile(rf"^[^\s,]{{1,{MAX_TAG_CHARS}}}$")
Ranking = Literal["hybrid", "fts"]


class MemoryEmbedder(Protocol):
    """Texts to vectors (``chrysalis.llm.embeddings``); ``name`` tells vector spaces apart, so they never mix."""

    @property
    def name(self) -> str:
        """The vector space, the embedder and its dimension (``lexical-512``): vectors of another name are not compared.

        May embed a short text to learn the dimension, and so raise ``ModelError`` as ``embed`` does.
        """
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, all of one length; ``ModelError`` when it cannot (memory then ranks by words)."""
        ...


@dataclass(frozen=True)
class Kept:
    """What ``MemoryStore.keep`` did."""

    id: int
    note: str = ""
    """Why the memory has no vector of the embedder (it failed: the memory is kept, found by its words); else empty."""


@dataclass(frozen=True)
class Memory:
    """One stored note."""

    id: int
    scope: str
    text: str
    tags: tuple[str, ...]
    created_at: float
    updated_at: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (``chrysalis memory ... --json``)."""
        return {
            "id": self.id,
            "scope": self.scope,
            "text": self.text,
            "tags": list(self.tags),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True)
class MemoryHit:
    """A recalled memory and why it ranked where it did."""

    memory: Memory
    score: float
    """The fused score, ``sum(1 / (60 + rank))`` over the rankings that found it; higher is better."""
    bm25: float | None = None
    """FTS5's BM25 (lower is better), when the words found it."""
    similarity: float | None = None
    """Cosine similarity to the query, when the meaning found it."""

    def to_json(self) -> dict[str, Any]:
        """The memory's fields plus ``score``, ``bm25`` and ``similarity``."""
        return {**self.memory.to_json(), "score": self.score, "bm25": self.bm25, "similarity": self.similarity}


@dataclass(frozen=True)
class Recall:
    """What one ``recall`` found, best first, and how it ranked them."""

    hits: tuple[MemoryHit, ...]
    ranking: Ranking
    """``hybrid`` (words and vectors, fused) or ``fts`` (words only)."""
    note: str = ""
    """Why the ranking is ``fts`` (no embedder, no sqlite-vec, the embedder failed); empty for ``hybrid``."""


def workspace_scope(workspace: Path) -> str:
    """The scope of one project: ``workspace:`` and its absolute, resolved path."""
    return _WORKSPACE_PREFIX + str(workspace.resolve())


def check_scope(scope: str) -> str:
    """``scope`` when it is ``global`` or ``workspace:/absolute/path``.

    Raises:
        ValueError: anything else; the message names the allowed forms.
    """
    path = scope[len(_WORKSPACE_PREFIX) :] if scope.startswith(_WORKSPACE_PREFIX) else ""
    if scope == GLOBAL_SCOPE or Path(path).is_absolute():
        return scope
    raise ValueError(f"Unknown memory scope {scope!r}: use 'global' or 'workspace:/absolute/path'.")


class MemoryStore:
    """The ``memories`` table, its FTS5 index and its vectors."""

    def __init__(self, db: Database, embedder: MemoryEmbedder | None = None) -> None:
        """Use ``db`` (shared with the other stores); ``embedder`` turns on ranking by meaning."""
        self._db = db
        self.embedder = embedder

    def with_embedder(self, embedder: MemoryEmbedder | None) -> MemoryStore:
        """The same memories, with vectors from ``embedder`` (None: words only)."""
        return MemoryStore(self._db, embedder)

    def remember(self, text: str, scope: str, tags: Sequence[str] = ()) -> int:
        """Keep ``text`` in ``scope`` and return its id (``keep`` also says whether its vector failed).

        Raises:
            ValueError: an empty or too long text, a bad scope or tag; the message says what is allowed.
        """
        return self.keep(text, scope, tags).id

    def keep(self, text: str, scope: str, tags: Sequence[str] = ()) -> Kept:
        """Keep ``text`` in ``scope``; a text already there keeps its id and gains ``tags``.

        Secrets in the text are redacted first (``chrysalis.redact``). When the embedder fails, the
        memory is kept all the same, without a vector, and ``Kept.note`` says why.

        Raises:
            ValueError: an empty or too long text, a bad scope or tag; the message says what is allowed.
        """
        clean = _clean_text(text)
        new_tags = _clean_tags(tags)
        check_scope(scope)
        existing = self._find(scope, clean)
        vector, space, note = self._vector(clean, existing[1] if existing is not None else None)
        now = time.time()
        with self._db.write() as conn:
            row = conn.execute("SELECT id, tags FROM memories WHERE scope = ? AND text = ?", (scope, clean)).fetchone()
            if row is None:
                cursor = conn.execute(
                    "INSERT INTO memories (scope, text, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (scope, clean, " ".join(new_tags), now, now),
                )
                memory_id = int(cursor.lastrowid or 0)
            else:
                memory_id = int(row[0])
                merged = list(dict.fromkeys([*str(row[1]).split(), *new_tags]))[:MAX_TAGS]
                conn.execute(
                    "UPDATE memories SET tags = ?, updated_at = ? WHERE id = ?", (" ".join(merged), now, memory_id)
                )
            if vector is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO memory_vectors (memory_id, space, vector) VALUES (?, ?, ?)",
                    (memory_id, space, vector),
                )
        return Kept(memory_id, note)

    def recall(self, query: str, scopes: Sequence[str], k: int = 5) -> Recall:
        """The ``k`` memories of ``scopes`` that best match ``query``, best first.

        Raises:
            ValueError: an empty query, ``k`` outside 1..50, or a bad scope.
        """
        if not query.strip():
            raise ValueError("The query is empty: say in a few words what to look for.")
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be from 1 to {MAX_K}, not {k}.")
        scopes = [check_scope(scope) for scope in dict.fromkeys([scopes] if isinstance(scopes, str) else scopes)]
        pool = max(4 * k, 50)
        by_words = self._by_words(query, scopes, pool)
        by_meaning, note = self._by_meaning(query, scopes, pool)
        scores: dict[int, float] = {}
        for ranked in (by_words, by_meaning or {}):
            for rank, memory_id in enumerate(ranked, 1):
                scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (RRF_K + rank)
        best = sorted(scores, key=lambda i: (-scores[i], -i))[:k]
        memories = self._get_many(best)
        hits = tuple(
            MemoryHit(memories[i], scores[i], by_words.get(i), by_meaning.get(i) if by_meaning else None)
            for i in best
            if i in memories
        )
        return Recall(hits, "fts" if by_meaning is None else "hybrid", note)

    def get(self, memory_id: int) -> Memory | None:
        """The memory with this id, or None."""
        return self._get_many([memory_id]).get(memory_id)

    def forget(self, memory_id: int, scopes: Sequence[str] | None = None) -> Memory | None:
        """Delete the memory with this id (only if it is in one of ``scopes``, when given); return it, or None."""
        memory = self.get(memory_id)
        if memory is None or (scopes is not None and memory.scope not in scopes):
            return None
        with self._db.write() as conn:
            conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))  # its vector goes by the foreign key
        return memory

    def list_memories(self, scopes: Sequence[str] | None = None, limit: int | None = None) -> list[Memory]:
        """The memories of ``scopes`` (all when None), most recently remembered first."""
        where, params = _in("scope", scopes) if scopes is not None else ("1", [])
        rows = self._db.read(
            f"SELECT * FROM memories WHERE {where} ORDER BY updated_at DESC, id DESC LIMIT ?",
            [*params, -1 if limit is None else limit],
        )
        return [_memory(row) for row in rows]

    def without_vectors(self, scopes: Sequence[str] | None = None) -> int:
        """How many memories of ``scopes`` (all when None) have no vector of this embedder (all, without one).

        Only their words rank them (kept by another embedder, or while it failed) until ``reindex``.

        Raises:
            ModelError: the embedder failed to name its vector space.
        """
        space = self.embedder.name if self.embedder is not None else ""
        where, params = _in("m.scope", scopes) if scopes is not None else ("1", [])
        rows = self._db.read(
            "SELECT count(*) AS n FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id "
            f"WHERE {where} AND (v.space IS NULL OR v.space != ?)",
            [*params, space],
        )
        return int(rows[0]["n"])

    def reindex(
        self, batch: int = 64, *, everything: bool = False, progress: Callable[[int], None] | None = None
    ) -> int:
        """Give every memory without a vector of this embedder one; return how many were embedded.

        Args:
            batch: Memories per ``embed`` call (and per transaction).
            everything: Embed again the memories that already have a vector of this embedder too.
            progress: Called with the number embedded so far after each batch.

        Raises:
            ModelError: the embedder failed; the batches before it are kept.
        """
        if self.embedder is None:
            return 0
        space = self.embedder.name
        done = last = 0
        while True:
            rows = self._db.read(
                "SELECT m.id, m.text FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id "
                "WHERE m.id > ? AND (? OR v.space IS NULL OR v.space != ?) ORDER BY m.id LIMIT ?",
                (last, everything, space, batch),
            )
            if not rows:
                return done
            vectors = [_pack(v) for v in self.embedder.embed([str(row["text"]) for row in rows])]
            with self._db.write() as conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO memory_vectors (memory_id, space, vector) VALUES (?, ?, ?)",
                    [(int(row["id"]), space, vector) for row, vector in zip(rows, vectors, strict=True)],
                )
            done += len(rows)
            last = int(rows[-1]["id"])
            if progress is not None:
                progress(done)

    def _find(self, scope: str, text: str) -> tuple[int, str | None] | None:
        rows = self._db.read(
            "SELECT m.id, v.space FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id "
            "WHERE m.scope = ? AND m.text = ?",
            (scope, text),
        )
        return (int(rows[0]["id"]), rows[0]["space"]) if rows else None

    def _vector(self, text: str, space: str | None) -> tuple[bytes | None, str, str]:
        """The text's packed vector and its space, unless it has one of this space already (``space``).

        None without an embedder, or when the embedder fails: the memory is kept anyway, and the
        third item says why it has no vector.
        """
        if self.embedder is None:
            return None, "", ""
        try:
            if space is not None and space == self.embedder.name:
                return None, "", ""
            (vector,) = self.embedder.embed([text])
            # All zeros (no words) too: it marks the memory as embedded, and matches nothing.
            return _pack(vector), self.embedder.name, ""
        except ModelError as exc:  # an endpoint that is down, a model that is missing: words still find it
            return None, "", f"it is found by its words only: {self._failed(exc)}; `chrysalis memory reindex` embeds it"

    def _failed(self, exc: ModelError) -> str:
        """``the embedder 'NAME' failed (why)``, without the name when even that fails."""
        try:
            name = f" {self.embedder.name!r}" if self.embedder is not None else ""
        except ModelError:
            name = ""
        return f"the embedder{name} failed ({str(exc).rstrip('.')})"

    def _by_words(self, query: str, scopes: list[str], pool: int) -> dict[int, float]:
        """Memory id -> BM25, best first, for the memories that share a word with ``query``."""
        words = list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))[:_MAX_QUERY_WORDS]
        if not words:
            return {}
        match = " OR ".join(f'"{word}"' for word in words)  # quoted: never FTS5 syntax
        where, params = _in("m.scope", scopes)
        rows = self._db.read(
            "SELECT m.id, bm25(memories_fts) AS rank FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
            f"WHERE memories_fts MATCH ? AND {where} ORDER BY rank LIMIT ?",
            [match, *params, pool],
        )
        return {int(row["id"]): float(row["rank"]) for row in rows}

    def _by_meaning(self, query: str, scopes: list[str], pool: int) -> tuple[dict[int, float] | None, str]:
        """Memory id -> cosine similarity, best first; None (and why) when vectors cannot rank."""
        if self.embedder is None:
            return None, "no embedder is attached, so memories are ranked by their words alone"
        if not self._db.vectors.available:
            return None, f"ranked by words alone: {self._db.vectors.problem}"
        try:
            (vector,) = self.embedder.embed([query])
            space = self.embedder.name
        except ModelError as exc:
            return None, f"ranked by words alone: {self._failed(exc)}"
        if not any(vector):  # no words at all: nothing to compare
            return {}, ""
        where, params = _in("m.scope", scopes)
        rows = self._db.read(  # a zero vector has no distance (NULL), and NULL would sort first
            "SELECT id, distance FROM (SELECT m.id, vec_distance_cosine(v.vector, ?) AS distance FROM memories m "
            f"JOIN memory_vectors v ON v.memory_id = m.id WHERE {where} AND v.space = ? AND length(v.vector) = ?) "
            "WHERE distance IS NOT NULL ORDER BY distance LIMIT ?",
            [_pack(vector), *params, space, 4 * len(vector), pool],
        )
        similar = {int(row["id"]): 1.0 - float(row["distance"]) for row in rows}
        return {i: s for i, s in similar.items() if s >= MIN_SIMILARITY}, ""

    def _get_many(self, ids: Sequence[int]) -> dict[int, Memory]:
        if not ids:
            return {}
        where, params = _in("id", list(ids))
        return {int(row["id"]): _memory(row) for row in self._db.read(f"SELECT * FROM memories WHERE {where}", params)}


def _in(column: str, values: Sequence[str | int]) -> tuple[str, list[str | int]]:
    """``column IN (?, ?, ...)`` and its parameters (``0`` when there are none: nothing matches)."""
    if not values:
        return "0", []
    return f"{column} IN ({', '.join('?' * len(values))})", list(values)


def _memory(row: Any) -> Memory:
    return Memory(
        id=int(row["id"]),
        scope=str(row["scope"]),
        text=str(row["text"]),
        tags=tuple(str(row["tags"]).split()),
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
    )


def _pack(vector: Sequence[float]) -> bytes:
    """float32, little-endian: what sqlite-vec reads as a vector."""
    return struct.pack(f"<{len(vector)}f", *vector)


def _clean_text(text: str) -> str:
    clean = current_redactor().text(text.strip())
    if not clean:
        raise ValueError("The memory is empty: write the fact or decision to keep.")
    if len(clean) > MAX_TEXT_CHARS:
        raise ValueError(
            f"The memory has {len(clean)} characters; keep one to {MAX_TEXT_CHARS} (one fact or decision, in a "
            "sentence or two). Split longer notes into several memories."
        )
    return clean


def _clean_tags(tags: Sequence[str]) -> list[str]:
    if isinstance(tags, str):
        tags = [tags]
    clean = list(dict.fromkeys(tag.strip() for tag in tags if tag.strip()))
    bad = [tag for tag in clean if not _TAG.match(tag)]
    if bad:
        raise ValueError(
            f"Bad tag {bad[0]!r}: a tag is one word of at most {MAX_TAG_CHARS} characters, without spaces or commas."
        )
    if len(clean) > MAX_TAGS:
        raise ValueError(f"{len(clean)} tags given; a memory has at most {MAX_TAGS}.")
    return clean
