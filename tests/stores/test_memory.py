"""The memory store: round trip, one text per scope, scopes, hybrid or word ranking, hostile queries, bad input."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from chrysalis.errors import ModelError
from chrysalis.llm.embeddings import LexicalEmbedder
from chrysalis.stores import MemoryStore, Stores
from chrysalis.stores import vectors as vectors_module
from chrysalis.stores.memory import GLOBAL_SCOPE, MAX_TEXT_CHARS, RRF_K, workspace_scope

WS = "workspace:/projects/alpha"
OTHER = "workspace:/projects/beta"
DB_NOTE = "The database is PostgreSQL 16."
"""The query "postgress" shares no word with it (FTS misses it) but many trigrams (the vectors find it)."""
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def memory(stores: Stores) -> MemoryStore:
    return stores.memory.with_embedder(LexicalEmbedder())


def texts(found: object) -> list[str]:
    hits = getattr(found, "hits", ())
    return [hit.memory.text for hit in hits]


def test_remember_get_list_forget_round_trip(memory: MemoryStore) -> None:
    first = memory.remember("  Run the tests with `make test`.  ", WS, ["build", "tests"])
    second = memory.remember("Prefer tabs over spaces in Makefiles.", GLOBAL_SCOPE)
    stored = memory.get(first)
    assert stored is not None
    assert (stored.scope, stored.text, stored.tags) == (WS, "Run the tests with `make test`.", ("build", "tests"))
    assert [m.id for m in memory.list_memories()] == [second, first]
    assert [m.id for m in memory.list_memories([WS])] == [first]
    gone = memory.forget(first)
    assert gone is not None and gone.id == first
    assert memory.get(first) is None and memory.forget(first) is None
    assert [m.id for m in memory.list_memories()] == [second]


def test_the_same_text_in_a_scope_is_kept_once_and_gains_tags(memory: MemoryStore, stores: Stores) -> None:
    first = memory.remember("The API lives in src/api.", WS, ["layout"])
    again = memory.remember("The API lives in src/api.  ", WS, ["api", "layout"])
    elsewhere = memory.remember("The API lives in src/api.", OTHER)
    assert again == first and elsewhere != first
    stored = memory.get(first)
    assert stored is not None and stored.tags == ("layout", "api") and stored.updated_at >= stored.created_at
    assert len(stores.db.read("SELECT * FROM memories")) == 2
    assert len(stores.db.read("SELECT * FROM memory_vectors")) == 2


def test_secrets_are_redacted_before_they_are_kept(memory: MemoryStore) -> None:
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    memory_id = memory.remember(f"The staging key is {key}", WS)
    stored = memory.get(memory_id)
    assert stored is not None and key not in stored.text


def test_a_workspace_memory_is_recalled_only_there_and_a_global_one_everywhere(memory: MemoryStore) -> None:
    memory.remember("Deploys go through the staging cluster first.", WS)
    memory.remember("Deploys need a signed tag.", GLOBAL_SCOPE)
    assert sorted(texts(memory.recall("deploys", [WS, GLOBAL_SCOPE]))) == [
        "Deploys go through the staging cluster first.",
        "Deploys need a signed tag.",
    ]
    assert texts(memory.recall("deploys", [OTHER, GLOBAL_SCOPE])) == ["Deploys need a signed tag."]
    assert texts(memory.recall("staging cluster", [OTHER])) == []


def test_hybrid_ranking_finds_a_misspelling_that_words_alone_miss(memory: MemoryStore, stores: Stores) -> None:
    memory.remember(DB_NOTE, WS)
    memory.remember("Release notes go in CHANGES.md.", WS)
    hybrid = memory.recall("postgress", [WS])
    assert hybrid.ranking == "hybrid" and hybrid.note == ""
    assert texts(hybrid) == [DB_NOTE]
    (hit,) = hybrid.hits
    assert hit.bm25 is None and hit.similarity is not None and hit.similarity > 0.2

    words_only = stores.memory.recall("postgress", [WS])  # the same memories without an embedder
    assert words_only.ranking == "fts" and "no embedder" in words_only.note
    assert texts(words_only) == []
    assert texts(stores.memory.recall("postgresql", [WS])) == [DB_NOTE]


def test_fusion_puts_a_memory_both_rankings_found_first(memory: MemoryStore) -> None:
    memory.remember("Database migrations are numbered and never edited.", WS)
    memory.remember("The numbered list in the README is generated.", WS)
    found = memory.recall("database migrations", [WS])
    best = found.hits[0]
    assert best.memory.text.startswith("Database migrations")
    assert best.bm25 is not None and best.similarity is not None
    assert best.score == pytest.approx(2 / (RRF_K + 1))
    assert all(hit.score < best.score for hit in found.hits[1:])


def test_recall_returns_at_most_k_best_first(memory: MemoryStore) -> None:
    for n in range(8):
        memory.remember(f"Note {n} about caching" + " and caching" * n, WS)
    found = memory.recall("caching", [WS], k=3)
    assert len(found.hits) == 3
    assert [hit.score for hit in found.hits] == sorted((hit.score for hit in found.hits), reverse=True)


HOSTILE = [
    '"',
    "AND",
    "*",
    "(",
    ")",
    "NEAR(",
    "a OR",
    '"unbalanced',
    "text:AND",
    "-x",
    "^x",
    "{a b}",
    "x NOT",
    "'",
    "ü*",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_fts_syntax_in_a_query_is_only_text(memory: MemoryStore, query: str) -> None:
    memory.remember("Use AND between filters (always), and quote the * wildcard.", WS)
    found = memory.recall(query, [WS])
    assert found.ranking == "hybrid"
    expected = ["Use AND between filters (always), and quote the * wildcard."] if "AND" in query else []
    assert texts(found) == expected


def test_operator_words_are_searched_as_words(memory: MemoryStore) -> None:
    memory.remember("Never deploy on Friday.", WS)
    memory.remember("Mention NEAR-duplicates in reviews.", WS)
    assert texts(memory.recall("NOT deploy OR near", [WS], k=1)) == ["Never deploy on Friday."]
    assert texts(memory.recall("NEAR", [WS])) == ["Mention NEAR-duplicates in reviews."]


def test_memories_survive_closing_and_reopening_the_home(home: Path) -> None:
    with Stores.open(home) as stores:
        memory_id = stores.memory.with_embedder(LexicalEmbedder()).remember("Lint with ruff.", GLOBAL_SCOPE, ["lint"])
    with Stores.open(home) as stores:
        again = stores.memory.with_embedder(LexicalEmbedder())
        assert texts(again.recall("ruff lint", [GLOBAL_SCOPE])) == ["Lint with ruff."]
        assert again.remember("Lint with ruff.", GLOBAL_SCOPE) == memory_id


def test_forget_within_scopes_leaves_other_scopes_alone_and_drops_the_vector(
    memory: MemoryStore, stores: Stores
) -> None:
    memory_id = memory.remember("Beta uses poetry.", OTHER)
    assert memory.forget(memory_id, [WS, GLOBAL_SCOPE]) is None
    assert memory.get(memory_id) is not None
    assert memory.forget(memory_id, [OTHER]) is not None
    assert stores.db.read("SELECT * FROM memory_vectors") == []
    assert stores.db.read("SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'poetry'") == []


def test_reindex_gives_vectors_to_memories_kept_without_an_embedder(stores: Stores, memory: MemoryStore) -> None:
    stores.memory.remember(DB_NOTE, WS)
    assert texts(memory.recall("postgress", [WS])) == []
    assert memory.reindex() == 1 and memory.reindex() == 0
    assert texts(memory.recall("postgress", [WS])) == [DB_NOTE]


class DownEmbedder:
    name = "down-3"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise ModelError("the embeddings endpoint refused the connection")


def test_an_embedder_that_fails_leaves_memory_working_on_words(stores: Stores) -> None:
    down = stores.memory.with_embedder(DownEmbedder())
    down.remember("Logs are in /var/log/app.", WS)
    found = down.recall("logs", [WS])
    assert texts(found) == ["Logs are in /var/log/app."]
    assert found.ranking == "fts" and "'down-3' failed" in found.note and "refused" in found.note


def test_vectors_of_another_embedder_are_not_compared(stores: Stores, memory: MemoryStore) -> None:
    memory.remember(DB_NOTE, WS)
    small = stores.memory.with_embedder(LexicalEmbedder(dim=64))
    found = small.recall("postgress", [WS])
    assert found.ranking == "hybrid" and texts(found) == []
    assert small.without_vectors() == 1 and small.without_vectors([OTHER]) == 0 and memory.without_vectors() == 0


def test_a_failed_embedding_keeps_the_memory_and_says_so_and_reindex_mends_it(
    stores: Stores, memory: MemoryStore
) -> None:
    kept = stores.memory.with_embedder(DownEmbedder()).keep(DB_NOTE, WS, ["db"])
    assert memory.get(kept.id) is not None and stores.db.read("SELECT * FROM memory_vectors") == []
    assert kept.note.startswith("it is found by its words only: the embedder 'down-3' failed (the embeddings")
    assert memory.keep(DB_NOTE, WS) == type(kept)(kept.id)  # kept again with a working embedder: now embedded
    assert texts(memory.recall("postgress", [WS])) == [DB_NOTE]
    assert memory.keep(DB_NOTE, WS).note == ""  # already embedded in this space: nothing to do


class NamelessEmbedder:
    """Embeds, but fails to name its space (an endpoint that must be asked for its vectors' length, and is down)."""

    @property
    def name(self) -> str:
        raise ModelError("the endpoint is down")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return LexicalEmbedder().embed(texts)


def test_an_embedder_that_cannot_name_its_space_still_keeps_and_recalls(stores: Stores, memory: MemoryStore) -> None:
    memory_id = memory.remember(DB_NOTE, WS)
    nameless = stores.memory.with_embedder(NamelessEmbedder())
    again = nameless.keep(DB_NOTE, WS, ["db"])
    assert again.id == memory_id and "the embedder failed (the endpoint is down)" in again.note
    found = nameless.recall("database", [WS])
    assert texts(found) == [DB_NOTE] and found.ranking == "fts" and "the endpoint is down" in found.note
    with pytest.raises(ModelError):
        nameless.reindex()


class FlakyEmbedder(LexicalEmbedder):
    """Embeds ``good`` batches, then fails."""

    def __init__(self, good: int) -> None:
        super().__init__(dim=32)
        self.good = good
        self.batches: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(self.batches) >= self.good:
            raise ModelError("the endpoint went away")
        self.batches.append(len(texts))
        return super().embed(texts)


def test_reindex_embeds_in_batches_reports_progress_and_keeps_what_it_did_when_it_fails(stores: Stores) -> None:
    for n in range(5):
        stores.memory.remember(f"Note number {n}.", WS)
    seen: list[int] = []
    flaky = stores.memory.with_embedder(FlakyEmbedder(good=2))
    with pytest.raises(ModelError, match="went away"):
        flaky.reindex(batch=2, progress=seen.append)
    assert seen == [2, 4] and flaky.without_vectors() == 1
    assert stores.memory.with_embedder(LexicalEmbedder(dim=32)).reindex(batch=2) == 1
    steady = FlakyEmbedder(good=10)
    assert stores.memory.with_embedder(steady).reindex(batch=2) == 0 and steady.batches == []
    assert stores.memory.with_embedder(steady).reindex(batch=2, everything=True) == 5 and steady.batches == [2, 2, 1]


@pytest.mark.parametrize(
    ("text", "scope", "tags", "needle"),
    [
        ("   ", WS, (), "empty"),
        ("x" * (MAX_TEXT_CHARS + 1), WS, (), f"keep one to {MAX_TEXT_CHARS}"),
        ("fine", "workspace:relative/path", (), "'global' or 'workspace:/absolute/path'"),
        ("fine", "project", (), "Unknown memory scope 'project'"),
        ("fine", WS, ("two words",), "Bad tag 'two words'"),
        ("fine", WS, tuple(f"t{n}" for n in range(11)), "at most 10"),
    ],
)
def test_bad_memories_are_refused_with_what_is_allowed(
    memory: MemoryStore, text: str, scope: str, tags: tuple[str, ...], needle: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(needle)):
        memory.remember(text, scope, tags)
    assert memory.list_memories() == []


@pytest.mark.parametrize(
    ("query", "k", "needle"), [("  ", 5, "query is empty"), ("x", 0, "1 to 50"), ("x", 51, "1 to 50")]
)
def test_bad_recalls_are_refused(memory: MemoryStore, query: str, k: int, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        memory.recall(query, [WS], k)


def test_workspace_scope_is_the_resolved_absolute_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert workspace_scope(tmp_path / "a" / ".." / "a") == f"workspace:{(tmp_path / 'a').resolve()}"


# -- Where sqlite-vec cannot load ---------------------------------------------------------------------


def test_without_sqlite_vec_memory_works_on_words_and_says_so(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        vectors_module, "_extension_file", lambda: (None, "sqlite-vec is not installed (pip install sqlite-vec)")
    )
    with Stores.open(home) as stores:
        assert not stores.db.vectors.available
        memory = stores.memory.with_embedder(LexicalEmbedder())
        memory.remember(DB_NOTE, WS)
        found = memory.recall("postgresql database", [WS])
        assert texts(found) == [DB_NOTE]
        assert found.ranking == "fts" and "sqlite-vec is not installed" in found.note
        assert len(stores.db.read("SELECT * FROM memory_vectors")) == 1  # kept for when the extension loads
    monkeypatch.undo()
    with Stores.open(home) as stores:  # the same file where it loads: the vector was kept, so meaning finds it
        found = stores.memory.with_embedder(LexicalEmbedder()).recall("postgress", [WS])
        assert found.ranking == "hybrid" and texts(found) == [DB_NOTE]


def test_when_sqlite_refuses_the_extension_the_database_still_opens(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: object, extension: Path) -> None:
        raise OSError("undefined symbol: sqlite3_auto_extension")

    monkeypatch.setattr(vectors_module, "_loads_extensions", lambda: False)
    monkeypatch.setattr(vectors_module._AutoExtension, "__init__", refuse)
    with Stores.open(home) as stores:
        assert "could not be registered" in stores.db.vectors.problem
        memory = stores.memory.with_embedder(LexicalEmbedder())
        memory.remember("Docs are built with mkdocs.", GLOBAL_SCOPE)
        assert memory.recall("mkdocs", [GLOBAL_SCOPE]).ranking == "fts"


def test_the_auto_extension_reaches_only_our_connection(stores: Stores) -> None:
    assert stores.db.vectors.available, stores.db.vectors.problem
    other = sqlite3.connect(":memory:")
    try:
        with pytest.raises(sqlite3.OperationalError, match="no such function"):
            other.execute("SELECT vec_version()")
    finally:
        other.close()


def _python_that_loads_extensions() -> str | None:
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if not candidate or Path(candidate).resolve() == Path(sys.executable).resolve():
            continue
        probe = "import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, 'enable_load_extension') else 1)"
        if subprocess.run([candidate, "-c", probe], capture_output=True, timeout=60).returncode == 0:
            return candidate
    return None


def test_a_python_that_loads_extensions_loads_sqlite_vec_the_documented_way() -> None:
    python = _python_that_loads_extensions()
    if python is None:
        pytest.skip("no Python here whose sqlite3 loads extensions")
    import sqlite_vec

    site = str(Path(sqlite_vec.__file__).parents[1])
    code = "from pathlib import Path; from chrysalis.stores.vectors import connect; print(connect(Path(':memory:'))[1])"
    done = subprocess.run(
        [python, "-I", "-c", f"import sys; sys.path[:0] = [{str(SRC)!r}, {site!r}]; {code}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "version='v" in done.stdout, done.stdout
