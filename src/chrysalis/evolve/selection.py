"""Priority selection: which variant of a compiled module to run for ``fast``, ``cheap``, or a sentence.

Keywords map to bins (seed 000): ``cheap``, ``fast``, ``compact``, ``verbose`` each fix one axis
(several may be combined: ``"cheap fast"``), and the best-scoring elite among the matching bins
wins; ``best`` (or no priority) is the best score overall. A sentence ("accurate, money is no
object") is split into clauses; each clause is embedded and matched to the nearest of a few
intents (accuracy, low cost, cost does not matter, speed, brevity, detail), and the intents weigh
the normalised phenotype axes. The point of the whole cloud with the highest weighted utility
wins. Nothing recognised falls back to the best score, and the ``Choice`` always says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chrysalis.evolve.archive import ModuleArchive, Point, rank
from chrysalis.llm.embeddings import Embedder, LexicalEmbedder, cosine

__all__ = ["KEYWORDS", "Choice", "select"]

KEYWORDS: dict[str, tuple[int, str] | None] = {
    "best": None,
    "cheap": (0, "cheap"),
    "premium": (0, "premium"),
    "fast": (1, "fast"),
    "slow": (1, "slow"),
    "compact": (2, "compact"),
    "verbose": (2, "verbose"),
}

# Intent -> example phrasings. Effects are weights on (score, cost, latency, tokens): positive
# means "less is better" for the resource axes; ``None`` means "this axis does not matter".
_INTENTS: dict[str, tuple[tuple[str, ...], dict[str, float | None]]] = {
    "accuracy": (
        (
            "accurate",
            "accuracy",
            "best quality",
            "correct answers",
            "precise",
            "reliable",
            "get it right",
            "high quality",
            "the best",
        ),
        {"score": 4.0},
    ),
    "low cost": (
        ("cheap", "low cost", "save money", "on a budget", "inexpensive", "costs little", "frugal"),
        {"cost": 2.0},
    ),
    "cost does not matter": (
        (
            "money is no object",
            "cost does not matter",
            "whatever it costs",
            "price is irrelevant",
            "spare no expense",
            "expensive is fine",
        ),
        {"cost": None},
    ),
    "speed": (
        ("fast", "quick", "low latency", "in a hurry", "speed", "as soon as possible", "real time", "snappy"),
        {"latency": 2.0},
    ),
    "brevity": (("short", "concise", "brief", "compact", "terse", "few words", "small"), {"tokens": 1.5}),
    "detail": (("detailed", "verbose", "thorough", "elaborate", "long answers", "explain fully"), {"tokens": -1.5}),
}
_MIN_SIMILARITY = 0.35
_CLAUSES = re.compile(r"[,;.]|\band\b|\bbut\b|\bwhile\b", re.IGNORECASE)


@dataclass(frozen=True)
class Choice:
    """The chosen variant and the reason, for logs and ``archive show``."""

    point: Point
    reason: str


def select(archive: ModuleArchive, priority: str | None = None, *, embedder: Embedder | None = None) -> Choice:
    """Pick the variant of ``archive`` that fits ``priority``.

    Raises:
        ValueError: the archive is empty.
    """
    best = archive.best
    text = (priority or "best").strip()
    words = text.lower().replace(",", " ").split()
    if words and all(w in KEYWORDS for w in words):
        return _by_keywords(archive, words, best)
    return _by_sentence(archive, text, embedder or LexicalEmbedder(), best)


def _by_keywords(archive: ModuleArchive, words: list[str], best: Point) -> Choice:
    wanted = [axis for w in words if (axis := KEYWORDS[w]) is not None]
    if not wanted:
        return Choice(best, "best score")
    matching = [p for key, p in archive.elites().items() if all(key[i] == side for i, side in wanted)]
    if not matching:
        return Choice(best, f"no elite is {' and '.join(words)}; took the best score")
    chosen = min(matching, key=rank)
    return Choice(chosen, f"best elite among bins that are {' and '.join(words)}")


def intents(text: str, embedder: Embedder) -> list[tuple[str, str, float]]:
    """``(clause, intent, similarity)`` for each clause of ``text`` that is near an intent."""
    clauses = [c.strip() for c in _CLAUSES.split(text) if c and c.strip()]
    if not clauses:
        return []
    phrases = [(intent, phrase) for intent, (examples, _) in _INTENTS.items() for phrase in examples]
    vectors = embedder.embed([*clauses, *(phrase for _, phrase in phrases)])
    clause_vecs, phrase_vecs = vectors[: len(clauses)], vectors[len(clauses) :]
    found: list[tuple[str, str, float]] = []
    for clause, vec in zip(clauses, clause_vecs, strict=True):
        sims = [(cosine(vec, pv), intent) for (intent, _), pv in zip(phrases, phrase_vecs, strict=True)]
        similarity, intent = max(sims)
        if similarity >= _MIN_SIMILARITY:
            found.append((clause, intent, similarity))
    return found


def _by_sentence(archive: ModuleArchive, text: str, embedder: Embedder, best: Point) -> Choice:
    matched = intents(text, embedder)
    if not matched:
        return Choice(best, f"did not recognise {text!r}; took the best score")
    weights: dict[str, float | None] = {"score": 1.0, "cost": 0.0, "latency": 0.0, "tokens": 0.0}
    for _, intent, _ in matched:
        for axis, weight in _INTENTS[intent][1].items():
            if weights[axis] is not None:
                weights[axis] = weight
    points = sorted(archive.points, key=rank)  # ties in utility go to the better-ranked point
    costs = [p.phenotype.cost_usd for p in points]
    if max(costs) == min(costs):  # a free model: cost is compute, measured in tokens (as in the bins)
        costs = [p.phenotype.tokens for p in points]
    axes = {
        "score": [p.phenotype.score for p in points],
        "cost": costs,
        "latency": [p.phenotype.latency_ms for p in points],
        "tokens": [p.phenotype.tokens for p in points],
    }
    normal = {axis: _normalise(values) for axis, values in axes.items()}

    def utility(i: int) -> float:
        total = (weights["score"] or 0.0) * normal["score"][i]
        for axis in ("cost", "latency", "tokens"):
            total -= (weights[axis] or 0.0) * normal[axis][i]
        return total

    index = max(range(len(points)), key=lambda i: (utility(i), -i))
    said = ", ".join(f"{clause!r} → {intent}" for clause, intent, _ in matched)
    return Choice(points[index], f"nearest phenotype for {said}")


def _normalise(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    return [0.0 if high == low else (v - low) / (high - low) for v in values]
