"""Executing a plan: leaves as sub-agents, split nodes watched as their children finish.

Leaves run as sub-agents (``AgentSession.child``), a few at a time across the whole tree. A split
node's children run together; each time one finishes, the node's rolling success rate (children
done among the children that ran, from the second one on; one cancelled for cost does not count)
is checked against the priority's ``min_success_rate``. Below it is seed 001's diminishing-returns
explosion, now caught while the work goes on rather than counted after: the node's children still
running are cancelled, the files its finished leaves changed are put back
(``CheckpointStore.restore``), the node is rolled back to its ``pre-branch`` checkpoint with its
children pruned, and it runs whole (``inline``) as one leaf.
A split node whose children all finished is merged and a ``post-merge`` checkpoint is taken.

Spending past the cost limit cancels the leaves not yet started, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chrysalis.decomposition.checkpoints import CheckpointStack
from chrysalis.decomposition.plan import PlanNode
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.evolve.priority import DecompositionLimits

if TYPE_CHECKING:
    from chrysalis.agent.session import AgentSession

__all__ = ["Spend", "TreeRunner", "ran", "succeeded"]

MIN_FINISHED = 2
"""Children finished before a node's rolling success rate counts: one failure alone is not a trend."""


@dataclass
class Spend:
    """What the decomposition has spent so far: USD and tokens (the planner's and every leaf's)."""

    cost_usd: float = 0.0
    context: int = 0


def succeeded(node: PlanNode) -> bool:
    """A leaf that is done, or a split node whose leaves are all done."""
    return all(leaf.status == "done" for leaf in node.leaves())


def ran(node: PlanNode) -> bool:
    """Some leaf of ``node`` ran to an end (done or failed): one cancelled for cost says nothing of the split."""
    return any(leaf.status in ("done", "failed") for leaf in node.leaves())


class TreeRunner:
    """Runs one plan's tree under one decomposition's limits, checkpoints and spending."""

    def __init__(
        self,
        session: AgentSession,
        run_id: str,
        limits: DecompositionLimits,
        *,
        spend: Spend,
        checkpoints: CheckpointStack,
        explosions: list[str],
        node_event: Callable[[PlanNode, str], None],
        concurrency: int = 2,
    ) -> None:
        """``node_event(node, detail)`` reports each node change (the ``plan_node`` event)."""
        self.session = session
        self.run_id = run_id
        self.limits = limits
        self.spend = spend
        self.checkpoints = checkpoints
        self.explosions = explosions
        self.node_event = node_event
        self._gate = asyncio.Semaphore(concurrency)

    async def run(self, root: PlanNode) -> None:
        """Run every leaf of ``root``; Ctrl-C cancels the leaves and each leaves its run recorded."""
        await self._run_node(root, root)

    async def _run_node(self, root: PlanNode, node: PlanNode) -> None:
        if not node.children:
            await self._run_leaf(node)
            return
        runners = {
            asyncio.create_task(self._run_node(root, child), name=f"chrysalis node {child.id}"): child
            for child in node.children
        }
        finished: list[PlanNode] = []
        try:
            pending = set(runners)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()  # a leaf's own errors are its status; anything else is a bug to surface
                    finished += [runners[task]] if ran(runners[task]) else []
                rate = sum(succeeded(child) for child in finished) / max(1, len(finished))
                within_budget = self.spend.cost_usd <= self.limits.max_cost_usd  # else rerunning would be cancelled
                if len(finished) >= MIN_FINISHED and rate < self.limits.min_success_rate and within_budget:
                    await _cancel(pending)
                    await self._roll_back(root, node, rate)
                    return
        finally:
            await _cancel({task for task in runners if not task.done()})
        self.checkpoints.push(root, self.spend.context, "post-merge", node)

    async def _roll_back(self, root: PlanNode, node: PlanNode, rate: float) -> None:
        """Seed 001's rollback during execution: prune ``node``'s children, put back their files, run it whole."""
        boom = f"diminishing-returns at {node.id} during execution ({rate:.2f} < {self.limits.min_success_rate})"
        self.explosions.append(boom)
        restored = self._restore_files(tuple(leaf.run_id for leaf in node.leaves() if leaf.run_id))
        for child in list(node.walk())[1:]:
            child.status = "pruned"
            self.node_event(child, f"rolled back: {boom}")
        checkpoint = self.checkpoints.before_split(node.id)
        node.children = checkpoint.tree.find(node.id).snapshot().children  # none: as it was before its split
        node.op, node.status = "inline", "planned"
        self.node_event(node, f"explosion ({boom}): back to its {checkpoint.reason} checkpoint{restored}; runs whole")
        await self._run_leaf(node)

    def _restore_files(self, run_ids: tuple[str, ...]) -> str:
        """Put back the files the pruned leaves changed; a phrase for the node's event saying what happened."""
        if not run_ids:
            return ""
        try:
            report = self.session.stores.checkpoints.restore(
                self.session.settings.workspace, run_ids, label=self.run_id
            )
        except UsageError:  # none of them changed a file (or git is missing): nothing to put back
            return ""
        return f", {len(report.restored)} file(s) its leaves changed put back" if report.restored else ""

    async def _run_leaf(self, leaf: PlanNode) -> None:
        async with self._gate:
            if self.spend.cost_usd > self.limits.max_cost_usd:
                leaf.status = "cancelled"
                self.node_event(leaf, "not run: the cost limit was passed")
                return
            await self._spawn(leaf)
            if self.spend.cost_usd > self.limits.max_cost_usd and not any("cost" in e for e in self.explosions):
                self.explosions.append(f"cost during execution (${self.spend.cost_usd:.4f})")

    async def _spawn(self, leaf: PlanNode) -> None:
        child = self.session.child(self.session.settings, leaf.profile, parent_run_id=self.run_id)
        leaf.status = "running"
        self.node_event(leaf, "")
        try:
            result = await child.run(leaf.task)
            leaf.answer, leaf.status = result.output, "done" if result.success else "failed"
            detail = result.output if result.success else (result.problem or result.output)
        except ChrysalisError as exc:
            leaf.answer, leaf.status, detail = str(exc), "failed", str(exc)
        except asyncio.CancelledError:
            leaf.status, detail = "cancelled", "cancelled"
            raise
        finally:
            leaf.run_id = child.last_run_id
            leaf.cost_usd = child.total_cost_usd
            self.spend.cost_usd += child.total_cost_usd
            self.spend.context += child.total_tokens
            self.node_event(leaf, detail)


async def _cancel(tasks: set[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until each has finished (its leaf recorded as cancelled)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
