"""Query time of the knowledge graph at 1k and 10k triples: loading the short-lived rdflib graph, then the query.

Each size gets a fresh store in a temporary ``CHRYSALIS_HOME`` filled with a synthetic module graph:
``m<i> depends_on m<j>`` (three older modules each, j < i), ``m<i> defined_in pkg<k>``, ``m<i> rdfs:comment "..."``
(a literal), in one workspace scope, plus a tenth as many global triples. Then, 20 times each:

- ``load``: ``KnowledgeStore.graph([workspace, global])``, reading the rows and building the graph;
- ``lookup``: what ``kg_query`` does for ``SELECT ?m WHERE { kg:mN kg:depends_on ?m }`` (check, load, run);
- ``path``: the same for ``kg:mN kg:depends_on+ ?m`` (everything mN needs, transitively);
- ``add``: ``KnowledgeStore.add`` of a new triple (one write transaction).

    python bench/knowledge.py [--sizes 1000,10000] [--repeats 20] [--seed 7]

Writes bench/results/knowledge.json. Run it on a quiet machine: the numbers are wall-clock times.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chrysalis.stores import KnowledgeStore, Stores
from chrysalis.stores.memory import GLOBAL_SCOPE
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "knowledge.json"
WORKSPACE = "workspace:/bench/project"
SCOPES = [WORKSPACE, GLOBAL_SCOPE]


def fill(kg: KnowledgeStore, triples: int, rng: random.Random) -> int:
    """Add about ``triples`` triples (five per module, a tenth of the modules global); return how many were added."""
    modules = max(triples // 5, 2)
    added = 0
    for i in range(modules):
        scope = GLOBAL_SCOPE if i % 10 == 9 else WORKSPACE
        facts = [("depends_on", f"m{rng.randrange(i)}", False) for _ in range(3 if i else 0)]  # on older modules
        facts += [("defined_in", f"pkg{i % 50}", False), ("rdfs:comment", f"Module {i} of the bench graph", True)]
        for predicate, obj, literal in facts:
            added += kg.add(f"m{i}", predicate, obj, scope, literal=literal)[1]
    return added


def timed(action: Callable[[], Any], repeats: int) -> dict[str, float]:
    """p50 and max of ``repeats`` runs of ``action``, in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}


def measure_size(size: int, repeats: int, seed: int = 7) -> dict[str, Any]:
    """Fill a fresh store with about ``size`` triples and time load, lookup, path and add."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as home, Stores.open(Path(home)) as stores:
        kg = stores.knowledge
        added = fill(kg, size, rng)
        modules = max(size // 5, 2)
        picks = iter([rng.randrange(modules) for _ in range(4 * repeats)])
        row: dict[str, Any] = {"triples": kg.count(), "added": added}
        row["load"] = timed(lambda: kg.graph(SCOPES), repeats)
        row["lookup"] = timed(
            lambda: kg.query(f"SELECT ?m WHERE {{ kg:m{next(picks)} kg:depends_on ?m }}", SCOPES), repeats
        )
        row["path"] = timed(
            lambda: kg.query(f"SELECT ?m WHERE {{ kg:m{next(picks)} kg:depends_on+ ?m }}", SCOPES, max_rows=10_000),
            repeats,
        )
        row["add"] = timed(lambda: kg.add(f"new{next(picks)}", "depends_on", "m0", WORKSPACE), repeats)
    return row


def main() -> None:
    """Parse the flags, measure each size, print and save the results."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--sizes", default="1000,10000")
    args.add_argument("--repeats", type=int, default=20)
    args.add_argument("--seed", type=int, default=7)
    flags = args.parse_args()
    rows = []
    for size in (int(s) for s in flags.sizes.split(",")):
        row = measure_size(size, flags.repeats, flags.seed)
        print(json.dumps(row))
        rows.append(row)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {"provenance": provenance(), "python": platform.python_version(), "sizes": rows}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
