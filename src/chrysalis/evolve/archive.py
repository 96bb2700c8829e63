"""The MAP-Elites archive of module variants: phenotypes, bins, elites and the point cloud.

Every variant compile measured is a point: its module, its phenotype on the dev set (score,
latency, cost, tokens) and its lineage (parent, operator). Bins are seed 000's three axes, each
split at the median of all points: cheap/premium × fast/slow × compact/verbose. The elite of a bin
is its best-scoring point (ties: cheaper, then shorter, then faster). Bins and elites are derived
from the points every time, so the archive is one list and can never disagree with itself.

A free model (the embedded one) costs 0 USD everywhere; then the cost axis measures compute
instead, in tokens, so ``cheap`` still means something.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from chrysalis.evolve.module import Module
from chrysalis.evolve.signature import Signature

__all__ = ["ALL_BINS", "BinKey", "ModuleArchive", "Phenotype", "Point", "Thresholds", "pareto_front", "rank"]

BinKey = tuple[str, str, str]
"""``(cheap|premium, fast|slow, compact|verbose)``."""
ALL_BINS: tuple[BinKey, ...] = tuple(
    (c, s, v) for c in ("cheap", "premium") for s in ("fast", "slow") for v in ("compact", "verbose")
)


@dataclass(frozen=True)
class Phenotype:
    """How a variant did on the dev set: mean score, median latency, mean cost and tokens per call."""

    score: float
    latency_ms: float
    cost_usd: float
    tokens: float
    errors: int = 0
    """Calls whose output failed validation (scored 0)."""

    @classmethod
    def measure(cls, results: Sequence[dict[str, Any]]) -> Phenotype:
        """Aggregate per-example results (``score``, ``latency_ms``, ``cost_usd``, ``tokens``, ``error``)."""
        if not results:
            raise ValueError("a phenotype needs at least one measured example")
        return cls(
            score=statistics.fmean(r["score"] for r in results),
            latency_ms=statistics.median(r["latency_ms"] for r in results),
            cost_usd=statistics.fmean(r["cost_usd"] for r in results),
            tokens=statistics.fmean(r["tokens"] for r in results),
            errors=sum(1 for r in results if r.get("error")),
        )


@dataclass(frozen=True)
class Point:
    """One measured variant."""

    module: Module
    phenotype: Phenotype
    parent: str | None = None
    """The id of the variant this one was made from (``None`` for seeds)."""
    operator: str = "seed"
    """How it was made: ``seed``, ``demos``, ``mutation: ...``, ``strategy``, ``reflect``."""

    @property
    def id(self) -> str:
        """The module's content id."""
        return self.module.id


@dataclass(frozen=True)
class Thresholds:
    """The medians that split each axis; the cost axis is in tokens when every cost is 0."""

    cost: float
    latency_ms: float
    tokens: float
    cost_in_tokens: bool

    def bin_of(self, p: Phenotype) -> BinKey:
        """The bin a phenotype falls in (at the median counts as the cheap/fast/compact side)."""
        cost = p.tokens if self.cost_in_tokens else p.cost_usd
        return (
            "cheap" if cost <= self.cost else "premium",
            "fast" if p.latency_ms <= self.latency_ms else "slow",
            "compact" if p.tokens <= self.tokens else "verbose",
        )


def rank(point: Point) -> tuple[float, float, float, float, str]:
    """Sort key: higher score first, then cheaper, shorter, faster (latency is the noisiest); the id makes it total."""
    p = point.phenotype
    return (-p.score, p.cost_usd, p.tokens, p.latency_ms, point.id)


@dataclass
class ModuleArchive:
    """The points of one compile, with their bins and elites; saved to SQLite by name and version."""

    name: str
    signature: type[Signature]
    points: list[Point] = field(default_factory=list[Point])
    version: int | None = None
    """Set when loaded from or saved to the store."""
    meta: dict[str, Any] = field(default_factory=dict[str, Any])
    """How it was made: model, metric, rollouts, seed, test scores if measured."""

    def add(self, point: Point) -> None:
        """Add a measured variant (a variant measured twice keeps its first measurement)."""
        if all(p.id != point.id for p in self.points):
            self.points.append(point)

    def get(self, module_id: str) -> Point:
        """The point of a module id.

        Raises:
            KeyError: no such variant; the message lists the ids there are.
        """
        for point in self.points:
            if point.id == module_id:
                return point
        raise KeyError(f"no variant {module_id!r} in archive {self.name!r}; it has {[p.id for p in self.points]}")

    @property
    def thresholds(self) -> Thresholds:
        """The medians of all points (bins are relative to what this compile found)."""
        if not self.points:
            raise ValueError(f"archive {self.name!r} is empty")
        phenos = [p.phenotype for p in self.points]
        costs = [p.cost_usd for p in phenos]
        in_tokens = max(costs) == min(costs)
        return Thresholds(
            cost=statistics.median(p.tokens for p in phenos) if in_tokens else statistics.median(costs),
            latency_ms=statistics.median(p.latency_ms for p in phenos),
            tokens=statistics.median(p.tokens for p in phenos),
            cost_in_tokens=in_tokens,
        )

    def bins(self, axes: tuple[int, ...] = (0, 1, 2)) -> dict[BinKey, list[Point]]:
        """Every occupied bin with its points, best first.

        ``axes`` keeps some of the three (0 cost, 1 latency, 2 verbosity); the others read ``"any"``.
        """
        limits = self.thresholds
        grouped: dict[BinKey, list[Point]] = {}
        for point in self.points:
            full = limits.bin_of(point.phenotype)
            key = tuple(side if i in axes else "any" for i, side in enumerate(full))
            grouped.setdefault(key, []).append(point)  # type: ignore[arg-type]
        return {key: sorted(points, key=rank) for key, points in grouped.items()}

    def elites(self, axes: tuple[int, ...] = (0, 1, 2)) -> dict[BinKey, Point]:
        """The best point of each occupied bin (over the given ``axes``)."""
        return {key: points[0] for key, points in self.bins(axes).items()}

    @property
    def best(self) -> Point:
        """The best-scoring point overall (the default when no priority is given)."""
        if not self.points:
            raise ValueError(f"archive {self.name!r} is empty")
        return min(self.points, key=rank)

    def to_json(self) -> dict[str, Any]:
        """The archive as one JSON document (what the store saves)."""
        return {
            "name": self.name,
            "signature": self.signature.to_spec(),
            "meta": self.meta,
            "points": [
                {
                    "module": p.module.to_spec(),
                    "phenotype": asdict(p.phenotype),
                    "parent": p.parent,
                    "operator": p.operator,
                }
                for p in self.points
            ],
        }

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, signature: type[Signature] | None = None, version: int | None = None
    ) -> ModuleArchive:
        """Rebuild an archive from ``to_json``; pass ``signature`` to keep the user's own class."""
        sig = signature or Signature.from_spec(data["signature"])
        points = [
            Point(
                module=Module.from_spec(p["module"], signature=sig),
                phenotype=Phenotype(**p["phenotype"]),
                parent=p["parent"],
                operator=p["operator"],
            )
            for p in data["points"]
        ]
        return cls(name=str(data["name"]), signature=sig, points=points, version=version, meta=dict(data["meta"]))

    def save(self, home: Path | None = None) -> int:
        """Save as the next version of ``name`` in ``$CHRYSALIS_HOME/chrysalis.db``; returns the version."""
        from chrysalis.stores import Stores

        with Stores.open(_home(home)) as stores:
            self.version = stores.archives.save(self.name, self.to_json())
        return self.version

    @classmethod
    def load(
        cls,
        name: str,
        *,
        version: int | None = None,
        home: Path | None = None,
        signature: type[Signature] | None = None,
    ) -> ModuleArchive:
        """The newest (or given) saved version of archive ``name``.

        Raises:
            KeyError: there is no such archive or version; the message lists the saved names.
        """
        from chrysalis.stores import Stores

        with Stores.open(_home(home)) as stores:
            found = stores.archives.load(name, version)
            names = [n for n, _, _ in stores.archives.names()]
        if found is None:
            which = f"version {version} of {name!r}" if version is not None else repr(name)
            raise KeyError(f"no archive {which}; saved archives: {names or 'none (run chrysalis compile first)'}")
        return cls.from_json(found.data, signature=signature, version=found.version)

    def __repr__(self) -> str:
        return f"ModuleArchive({self.name!r}, points={len(self.points)}, bins={len(self.bins()) if self.points else 0})"


def _home(home: Path | None) -> Path:
    from chrysalis.config import chrysalis_home

    return home if home is not None else chrysalis_home()


def pareto_front(points: Iterable[Point]) -> list[Point]:
    """Points no other point beats on score, cost, latency and tokens at once (for plots and notes)."""
    items = list(points)

    def dominated(a: Phenotype, b: Phenotype) -> bool:
        no_worse = (
            b.score >= a.score and b.cost_usd <= a.cost_usd and b.latency_ms <= a.latency_ms and b.tokens <= a.tokens
        )
        better = b.score > a.score or b.cost_usd < a.cost_usd or b.latency_ms < a.latency_ms or b.tokens < a.tokens
        return no_worse and better

    return [p for p in items if not any(dominated(p.phenotype, q.phenotype) for q in items if q is not p)]
