"""The plan tree and its phenotype (seed 001): what was decided, and how big, dear and good it got.

A ``PlanNode`` is one task in the tree. Its ``op`` is what the decomposer did with it: ``decompose``
(split into children, whose answers are then ``merge``d), ``spawn`` (a leaf run by a sub-agent), or
``inline`` (a leaf that may not be split further: the depth limit, or a rollback after an explosion;
it is run by a sub-agent too), ``vote`` (a leaf run by several sub-agents, the edit most of them made
kept: ``ballots.py``), or ``merge`` (the leaf that resolves a split's conflicting edits: ``conflicts.py``).
Each split is itself decided by a vote (``planner.py``).

The ``DecompositionPhenotype`` is seed 001's (depth, breadth, cost, context, success rate); after
every step it is checked against the priority's ``DecompositionLimits``; the first limit it passes
is the explosion that rolls the plan back to its last checkpoint.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from chrysalis.evolve.priority import DecompositionLimits

__all__ = ["DecompositionPhenotype", "Op", "PlanNode", "Status", "explosion", "phenotype_bin", "score"]

Op = Literal["decompose", "spawn", "inline", "vote", "merge"]
Status = Literal["planned", "running", "done", "failed", "pruned", "cancelled"]
_ids = itertools.count(1)


@dataclass
class PlanNode:
    """One task of the plan; the root is the user's task."""

    task: str
    depth: int = 0
    id: str = field(default_factory=lambda: f"n{next(_ids)}")
    parent: str | None = None
    op: Op = "spawn"
    profile: str = "editor"
    status: Status = "planned"
    children: list[PlanNode] = field(default_factory=list["PlanNode"])
    answer: str | None = None
    run_id: str | None = None
    """The sub-agent run that executed this leaf."""
    cost_usd: float = 0.0

    def walk(self) -> Iterator[PlanNode]:
        """This node and every node below it, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> list[PlanNode]:
        """The nodes that run as sub-agents."""
        return [node for node in self.walk() if not node.children]

    def find(self, node_id: str) -> PlanNode:
        """The node with ``node_id`` in this tree (KeyError if none)."""
        for node in self.walk():
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def snapshot(self) -> PlanNode:
        """A deep copy, for a checkpoint."""
        return copy.deepcopy(self)

    def steps(self) -> list[dict[str, Any]]:
        """The plan's shape as archived: each node's op, depth, profile and task."""
        return [{"op": n.op, "depth": n.depth, "profile": n.profile, "task": n.task} for n in self.walk()]


@dataclass
class DecompositionPhenotype:
    """How a decomposition went: tree depth, widest level, USD, tokens in play, leaves that succeeded."""

    depth: int = 0
    breadth: int = 1
    cost_usd: float = 0.0
    context: int = 0
    success_rate: float = 1.0

    @classmethod
    def of(cls, root: PlanNode, *, cost_usd: float, context: int) -> DecompositionPhenotype:
        """The shape of ``root`` with the spending so far; success counts the leaves that have finished."""
        nodes = list(root.walk())
        widths: dict[int, int] = {}
        for node in nodes:
            widths[node.depth] = widths.get(node.depth, 0) + 1
        finished = [n for n in root.leaves() if n.status in ("done", "failed", "cancelled")]
        rate = sum(n.status == "done" for n in finished) / len(finished) if finished else 1.0
        return cls(
            depth=max(widths), breadth=max(widths.values()), cost_usd=cost_usd, context=context, success_rate=rate
        )

    def to_json(self) -> dict[str, float]:
        """The phenotype as plain numbers."""
        return {k: float(v) for k, v in asdict(self).items()}


def explosion(phenotype: DecompositionPhenotype, limits: DecompositionLimits) -> str | None:
    """Which limit ``phenotype`` has passed (seed 001's order), or None."""
    if phenotype.depth > limits.max_depth:
        return "depth"
    if phenotype.breadth > limits.max_breadth:
        return "breadth"
    if phenotype.cost_usd > limits.max_cost_usd:
        return "cost"
    if phenotype.context > limits.max_context:
        return "context"
    if phenotype.success_rate < limits.min_success_rate:
        return "diminishing-returns"
    return None


def score(phenotype: DecompositionPhenotype) -> float:
    """Seed 001's score: success rate, less a tenth of the cost in USD and a hundred-millionth per token."""
    return round(phenotype.success_rate - 0.1 * phenotype.cost_usd - 1e-8 * phenotype.context, 6)


def phenotype_bin(phenotype: DecompositionPhenotype) -> str:
    """The MAP-Elites cell: depth, breadth (1, 2-4, 5-8, 9+), cost and context (low/med/high)."""
    breadth = (
        "1"
        if phenotype.breadth <= 1
        else "2-4"
        if phenotype.breadth <= 4
        else "5-8"
        if phenotype.breadth <= 8
        else "9+"
    )
    cost = "low" if phenotype.cost_usd < 0.05 else "med" if phenotype.cost_usd < 0.5 else "high"
    context = "low" if phenotype.context < 10_000 else "med" if phenotype.context < 50_000 else "high"
    return f"d{phenotype.depth}-b{breadth}-cost_{cost}-ctx_{context}"
