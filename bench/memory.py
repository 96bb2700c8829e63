"""Recall latency of the memory store at 1k, 10k and 100k memories: words only (FTS5) and hybrid (FTS5 + vectors).

Each size gets a fresh store in a temporary ``CHRYSALIS_HOME`` filled with synthetic memories:
sentences of 6 to 16 words drawn from a 3,000-word vocabulary with Zipf-like frequencies (so some
words are in thousands of memories, most in few), half in the searched workspace, a quarter
global, a quarter in other workspaces (the scope filter has work to do). Vectors come from the
lexical embedder (512 dimensions; never the llama model). Then the same queries (2 to 4 words, one
in five misspelt) run through ``MemoryStore.recall(query, [workspace, global], k=5)`` without an
embedder (``fts``) and with one (``hybrid``: the query is embedded and every vector of the two
scopes is compared by sqlite-vec's ``vec_distance_cosine``). p50 and p99 in milliseconds, and
``remember`` (embed + one write transaction) at each size.

    python bench/memory.py [--sizes 1000,10000,100000] [--queries 200] [--seed 7]

Writes bench/results/memory.json. Run it on a quiet machine: the numbers are wall-clock times.
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import random
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chrysalis.llm.embeddings import LexicalEmbedder
from chrysalis.stores import MemoryStore, Stores
from chrysalis.stores.memory import GLOBAL_SCOPE

RESULTS = Path(__file__).resolve().parent / "results" / "memory.json"
WORKSPACE = "workspace:/bench/project"
OTHERS = [f"workspace:/bench/other{n}" for n in range(8)]
_SYLLABLES = "ka lo mi ne ru ta si po de va lu ge ri fo ba ne xo zu pe te ci da mo".split()


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    """``size`` distinct made-up words of two to four syllables."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def sentences(rng: random.Random, words: list[str], count: int) -> list[str]:
    """``count`` distinct sentences whose words follow a Zipf-like distribution."""
    weights = [1 / (rank + 1) for rank in range(len(words))]
    out: set[str] = set()
    while len(out) < count:
        picked = rng.choices(words, weights, k=rng.randint(6, 16))
        out.add(" ".join(picked).capitalize() + ".")
    return sorted(out, key=lambda _s: rng.random())


def scope_for(index: int) -> str:
    """Half the searched workspace, a quarter global, a quarter other workspaces."""
    slot = index % 4
    return WORKSPACE if slot < 2 else GLOBAL_SCOPE if slot == 2 else OTHERS[index % len(OTHERS)]


def fill(stores: Stores, texts: list[str], embedder: LexicalEmbedder, batch: int = 2000) -> None:
    """Insert ``texts`` the way ``remember`` stores them (row, FTS through the trigger, vector), in big batches."""
    now = time.time()
    for start in range(0, len(texts), batch):
        chunk = texts[start : start + batch]
        vectors = embedder.embed(chunk)
        with stores.db.write() as conn:
            for offset, (text, vector) in enumerate(zip(chunk, vectors, strict=True)):
                cursor = conn.execute(
                    "INSERT INTO memories (scope, text, tags, created_at, updated_at) VALUES (?, ?, '', ?, ?)",
                    (scope_for(start + offset), text, now, now),
                )
                conn.execute(
                    "INSERT INTO memory_vectors (memory_id, space, vector) VALUES (?, ?, ?)",
                    (cursor.lastrowid, embedder.name, struct.pack(f"<{len(vector)}f", *vector)),
                )


def queries(rng: random.Random, texts: list[str], count: int) -> list[tuple[str, str, bool]]:
    """(query, the memory it came from, misspelt?): two to four of its words; every fifth query drops a letter."""
    out = []
    for n in range(count):
        source = rng.choice(texts)
        picked = rng.sample(source.rstrip(".").lower().split(), rng.randint(2, 4))
        misspelt = n % 5 == 0
        if misspelt:
            cut = rng.randrange(len(picked[0]))
            picked[0] = picked[0][:cut] + picked[0][cut + 1 :]
        out.append((" ".join(picked), source, misspelt))
    return out


def percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p99_ms": round(p99 * 1000, 2)}


def timed(fn: Callable[[], list[str]]) -> tuple[float, list[str]]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def measure_size(size: int, query_count: int, seed: int) -> dict[str, Any]:
    """Fill a fresh store with ``size`` memories; time recalls (both rankings) and a few remembers.

    Each ranking also reports how often the memory a query came from is among its 5 hits (all
    queries, and the misspelt ones): the queries come from memories of the searched scopes.
    """
    rng = random.Random(seed)
    texts = sentences(rng, vocabulary(rng), size + 50)
    stored, extra = texts[:size], texts[size:]
    asked = queries(rng, [t for i, t in enumerate(stored) if scope_for(i) in (WORKSPACE, GLOBAL_SCOPE)], query_count)
    embedder = LexicalEmbedder()
    with tempfile.TemporaryDirectory() as home, Stores.open(Path(home)) as stores:
        started = time.perf_counter()
        fill(stores, stored, embedder)
        row: dict[str, Any] = {"memories": size, "fill_s": round(time.perf_counter() - started, 1)}
        row["vectors"] = stores.db.vectors.version or stores.db.vectors.problem
        for name, memory in (("fts", stores.memory), ("hybrid", stores.memory.with_embedder(embedder))):
            _recall(memory, asked[0][0])  # warm the page cache
            runs = [(timed(functools.partial(_recall, memory, query)), source, typo) for query, source, typo in asked]
            row[name] = percentiles([seconds for (seconds, _), _, _ in runs])
            row[name]["source_in_top5"] = _share([source in hits for (_, hits), source, _ in runs])
            row[name]["misspelt_source_in_top5"] = _share([source in hits for (_, hits), source, typo in runs if typo])
        hybrid = stores.memory.with_embedder(embedder)
        row["remember"] = percentiles([timed(functools.partial(_remember, hybrid, text))[0] for text in extra])
        row["db_mb"] = round(Path(home, "chrysalis.db").stat().st_size / 1e6, 1)
    return row


def _share(flags: list[bool]) -> float:
    return round(sum(flags) / len(flags), 3) if flags else 0.0


def _recall(memory: MemoryStore, query: str) -> list[str]:
    found = memory.recall(query, [WORKSPACE, GLOBAL_SCOPE], k=5)
    if memory.embedder is not None and found.ranking != "hybrid":
        raise RuntimeError(f"hybrid ranking was not used: {found.note}")
    return [hit.memory.text for hit in found.hits]


def _remember(memory: MemoryStore, text: str) -> list[str]:
    memory.remember(text, WORKSPACE)
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = []
    columns = (
        "memories",
        "fill s",
        "fts p50",
        "fts p99",
        "hyb p50",
        "hyb p99",
        "rem p50",
        "rem p99",
        "db MB",
        "fts top5",
        "hyb top5",
    )
    print("".join(f"{name:>9}" for name in columns))
    for size in (int(part) for part in args.sizes.split(",")):
        row = measure_size(size, args.queries, args.seed)
        rows.append(row)
        cells = [
            size,
            row["fill_s"],
            *(row[part][p] for part in ("fts", "hybrid", "remember") for p in ("p50_ms", "p99_ms")),
        ]
        top5 = [row["fts"]["source_in_top5"], row["hybrid"]["source_in_top5"]]
        print("".join(f"{cell:>9}" for cell in [*cells, row["db_mb"], *top5]), flush=True)
    print("milliseconds; recall k=5 over the workspace and global scopes (3/4 of the memories); top5: share of")
    print("queries whose source memory is among the 5 hits")
    result = {
        "queries": args.queries,
        "seed": args.seed,
        "embedder": LexicalEmbedder().name,
        "rows": rows,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
