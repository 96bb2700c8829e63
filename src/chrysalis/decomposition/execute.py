"""Executing a plan: leaves as sub-agents in branches of the workspace, split nodes watched and merged.

Leaves run as sub-agents (``AgentSession.child``), a few at a time across the whole tree. A child of
a split that may write (an ``editor`` leaf, or a split whose leaves are; not one with a ``vcs``
leaf, which needs the repository itself) runs in a **branch**: its own copy of the split node's
workspace (``branches.py``). When the split node's children have all finished, the branches'
edits are **merged** into the node's workspace in the children's order, three ways per file; a
conflict (both changed the same lines) is resolved by a ``merge`` leaf of its own
(``conflicts.py``), never by one side overwriting the other. Merges into the user's workspace are
checkpointed under the decomposition's run, so ``chrysalis undo`` takes them back.

Each time a split node's child finishes, the node's rolling success rate (children done among the
children that ran, from the second one on; one cancelled for cost does not count) is checked
against the priority's ``min_success_rate``. Below it is seed 001's diminishing-returns explosion,
caught while the work goes on: the node's children still running are cancelled, their branches are
dropped (and the files of any that ran in place are put back, ``CheckpointStore.restore``), the
node is rolled back to its ``pre-branch`` checkpoint with its children pruned, and it runs whole:
as a ``vote`` (several voters, ``ballots.py``) at a voting level above ``none``, else ``inline``.
A writing leaf is voted from the start at the levels ``high`` and ``critical``.

Spending past the cost limit cancels the leaves not yet started, as before.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.decomposition.ballots import Ballot, leaf_vote_config, summary
from chrysalis.decomposition.branches import Branch, Conflict, merge
from chrysalis.decomposition.checkpoints import CheckpointStack
from chrysalis.decomposition.conflicts import conflict_task, unresolved
from chrysalis.decomposition.plan import PlanNode
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.evolve.priority import DecompositionLimits
from chrysalis.stores.shadow import ShadowRepo, SnapshotUnavailable
from chrysalis.voting import VoteError, VotingConfig, vote_async

if TYPE_CHECKING:
    from chrysalis.agent.session import AgentSession

__all__ = ["Spend", "TreeRunner", "ran", "succeeded", "writes"]

MIN_FINISHED = 2
"""Children finished before a node's rolling success rate counts: one failure alone is not a trend."""
VOTED_FROM_THE_START = ("high", "critical")
"""Voting levels at which every writing leaf runs as a ``vote``."""


@dataclasses.dataclass
class Spend:
    """What the decomposition has spent so far: USD and tokens (the planner's and every leaf's)."""

    cost_usd: float = 0.0
    context: int = 0


@dataclasses.dataclass
class LeafRun:
    """One sub-agent run of a leaf's task: how it ended and which run it was."""

    success: bool
    answer: str
    detail: str
    run_id: str | None


def succeeded(node: PlanNode) -> bool:
    """A leaf that is done, or a split node whose leaves are all done."""
    return all(leaf.status == "done" for leaf in node.leaves())


def ran(node: PlanNode) -> bool:
    """Some leaf of ``node`` ran to an end (done or failed): one cancelled for cost says nothing of the split."""
    return any(leaf.status in ("done", "failed") for leaf in node.leaves())


def writes(node: PlanNode) -> bool:
    """Whether ``node`` runs in a branch: some leaf below may edit files, and none needs the repository itself."""
    profiles = {leaf.profile for leaf in node.leaves()}
    return "editor" in profiles and "vcs" not in profiles


class TreeRunner:
    """Runs one plan's tree under one decomposition's limits, checkpoints, voting and spending."""

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
        voting: str = "none",
        concurrency: int = 2,
    ) -> None:
        """``node_event(node, detail)`` reports each node change (the ``plan_node`` event); ``voting`` is a level."""
        self.session = session
        self.run_id = run_id
        self.limits = limits
        self.spend = spend
        self.checkpoints = checkpoints
        self.explosions = explosions
        self.node_event = node_event
        self.voting = voting
        self._gate = asyncio.Semaphore(concurrency)
        self._workspace = session.settings.workspace.resolve()
        self._shadows: dict[Path, ShadowRepo] = {}
        self._isolate = session.settings.level >= 2  # below it no leaf writes: nothing to keep apart

    async def run(self, root: PlanNode) -> None:
        """Run every leaf of ``root``; Ctrl-C cancels the leaves and each leaves its run recorded."""
        for leaf in root.leaves():
            if self.voting in VOTED_FROM_THE_START and self._isolate and writes(leaf):
                leaf.op = "vote"
        await self._run_node(root, root, self._workspace)

    async def _run_node(self, root: PlanNode, node: PlanNode, workspace: Path) -> None:
        if not node.children:
            await self._run_leaf(node, workspace)
            return
        branches = await self._branches(node, workspace)
        runners = {
            asyncio.create_task(
                self._run_node(root, child, branches[child.id].path if child.id in branches else workspace),
                name=f"chrysalis node {child.id}",
            ): child
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
                    _discard(branches)
                    await self._roll_back(root, node, rate, workspace)
                    return
        finally:
            await _cancel({task for task in runners if not task.done()})
        await self._merge(node, branches, workspace)
        self.checkpoints.push(root, self.spend.context, "post-merge", node)

    async def _branches(self, node: PlanNode, workspace: Path) -> dict[str, Branch]:
        """A branch of ``workspace`` for each child of ``node`` that may write (none below level 2)."""
        branches: dict[str, Branch] = {}
        if not self._isolate:
            return branches
        try:
            for child in node.children:
                if writes(child):
                    branches[child.id] = await self._branch(workspace, child.id)
        except SnapshotUnavailable as exc:  # no git, or a workspace too big to copy: they share it, as before
            _discard(branches)
            self.node_event(node, f"its leaves share the workspace (no branches: {exc})")
            return {}
        except BaseException:
            _discard(branches)
            raise
        return branches

    async def _branch(self, workspace: Path, label: str) -> Branch:
        branch = await asyncio.to_thread(Branch, self._shadow(workspace), label)
        self._shadows[branch.path] = branch.shadow
        return branch

    def _shadow(self, workspace: Path) -> ShadowRepo:
        """The snapshot store of ``workspace``: the user's own (``$CHRYSALIS_HOME/shadow``), or a branch's."""
        return self._shadows.get(workspace) or self.session.stores.checkpoints.shadow(workspace)

    async def _merge(self, node: PlanNode, branches: dict[str, Branch], workspace: Path) -> None:
        """Merge the children's branches into ``workspace`` in order; conflicts go to a ``merge`` leaf."""
        conflicts: list[tuple[PlanNode, Conflict]] = []
        try:
            for child in node.children:
                if child.id in branches:
                    conflicts += [(child, c) for c in await self._merge_branch(node, branches[child.id], workspace)]
        finally:
            _discard(branches)
        if conflicts:
            await self._resolve(node, conflicts, workspace)

    async def _merge_branch(self, node: PlanNode, branch: Branch, workspace: Path) -> list[Conflict]:
        changes = await asyncio.to_thread(branch.changes)
        if not changes:
            return []
        report = await asyncio.to_thread(merge, workspace, changes, branch.label, before_write=self._before(workspace))
        clashes = f", {len(report.conflicts)} in conflict" if report.conflicts else ""
        self.node_event(node, f"merged {branch.label}'s edits: {len(report.applied)} file(s){clashes}")
        return report.conflicts

    def _before(self, workspace: Path) -> Callable[[str], None] | None:
        """Checkpoint each file of the user's workspace before a merge writes it, so undo can put it back."""
        if workspace != self._workspace:
            return None  # a branch: it is thrown away once merged, nothing to undo
        return lambda rel: self.session.stores.checkpoints.snapshot(self.run_id, workspace, Path(rel))

    async def _resolve(self, node: PlanNode, conflicts: list[tuple[PlanNode, Conflict]], workspace: Path) -> None:
        """Seed 001's ``merge`` op as a node: a leaf of its own resolves the conflicts; markers left fail it."""
        leaf = PlanNode(conflict_task(conflicts), node.depth + 1, parent=node.id, op="merge", profile="editor")
        node.children.append(leaf)
        self.node_event(leaf, f"{len(conflicts)} conflict(s) to resolve")
        await self._run_leaf(leaf, workspace)
        left = unresolved(workspace, conflicts)
        if left and leaf.status == "done":
            leaf.status = "failed"
            self.node_event(leaf, f"conflict markers left in {', '.join(left)}: both sides are kept there")

    async def _roll_back(self, root: PlanNode, node: PlanNode, rate: float, workspace: Path) -> None:
        """Seed 001's rollback during execution: prune ``node``'s children, put back their files, run it whole."""
        boom = f"diminishing-returns at {node.id} during execution ({rate:.2f} < {self.limits.min_success_rate})"
        self.explosions.append(boom)
        restored = self._restore_files(workspace, tuple(leaf.run_id for leaf in node.leaves() if leaf.run_id))
        for child in list(node.walk())[1:]:
            child.status = "pruned"
            self.node_event(child, f"rolled back: {boom}")
        checkpoint = self.checkpoints.before_split(node.id)
        node.children = checkpoint.tree.find(node.id).snapshot().children  # none: as it was before its split
        voted = self.voting != "none" and self._isolate and writes(node)  # a vote keeps edits: only for writers
        node.op, node.status = ("vote" if voted else "inline"), "planned"
        how = "is voted" if node.op == "vote" else "runs whole"
        self.node_event(node, f"explosion ({boom}): back to its {checkpoint.reason} checkpoint{restored}; {how}")
        await self._run_leaf(node, workspace)

    def _restore_files(self, workspace: Path, run_ids: tuple[str, ...]) -> str:
        """Put back the files pruned leaves changed in place; a phrase for the node's event saying what happened."""
        if not run_ids:
            return ""
        try:
            report = self.session.stores.checkpoints.restore(workspace, run_ids, label=self.run_id)
        except UsageError:  # none of them changed a file here (their branches are dropped), or git is missing
            return ""
        return f", {len(report.restored)} file(s) its leaves changed put back" if report.restored else ""

    async def _run_leaf(self, leaf: PlanNode, workspace: Path) -> None:
        if leaf.op == "vote":
            await self._vote(leaf, workspace)
            return
        async with self._gate:
            if self._over_budget(leaf):
                return
            leaf.status = "running"
            self.node_event(leaf, "")
            try:
                run = await self._agent(leaf, workspace)
            except asyncio.CancelledError:
                leaf.status = "cancelled"
                self.node_event(leaf, "cancelled" + self._kept(workspace))
                raise
            leaf.answer, leaf.run_id, leaf.status = run.answer, run.run_id, "done" if run.success else "failed"
            self.node_event(leaf, run.detail)

    def _kept(self, workspace: Path) -> str:
        """For a cancelled leaf's event: where its unmerged edits stay (a branch is not deleted on Ctrl-C)."""
        return "" if workspace == self._workspace else f"; its edits so far are kept in {workspace}"

    def _over_budget(self, leaf: PlanNode) -> bool:
        """Past the cost limit: ``leaf`` is cancelled before it starts."""
        if self.spend.cost_usd <= self.limits.max_cost_usd:
            return False
        leaf.status = "cancelled"
        self.node_event(leaf, "not run: the cost limit was passed")
        return True

    async def _agent(self, leaf: PlanNode, workspace: Path, voter: int | None = None) -> LeafRun:
        """Run ``leaf``'s task as a sub-agent in ``workspace`` (sampling as ``voter``); its spending is counted."""
        settings = self.session.settings
        if workspace != self._workspace:
            settings = dataclasses.replace(settings, workspace=workspace)
        child = self.session.child(settings, leaf.profile, parent_run_id=self.run_id, voter=voter)
        try:
            result = await child.run(leaf.task)
            detail = result.output if result.success else (result.problem or result.output)
            return LeafRun(result.success, result.output, detail, child.last_run_id)
        except ChrysalisError as exc:
            return LeafRun(False, str(exc), str(exc), child.last_run_id)
        finally:
            leaf.cost_usd += child.total_cost_usd
            self.spend.cost_usd += child.total_cost_usd
            self.spend.context += child.total_tokens
            if self.spend.cost_usd > self.limits.max_cost_usd and not any("cost" in e for e in self.explosions):
                self.explosions.append(f"cost during execution (${self.spend.cost_usd:.4f})")
            if leaf.run_id is None:
                leaf.run_id = child.last_run_id  # a cancelled leaf's run is still named in its event

    async def _vote(self, leaf: PlanNode, workspace: Path) -> None:
        """Seed 001's ``vote`` op: voters run ``leaf`` in branches of their own; the winner's edit is merged."""
        ballots: list[Ballot] = []

        async def sample(voter: int) -> Ballot:
            async with self._gate:
                if self._over_budget(leaf):
                    raise ChrysalisError("the cost limit was passed")
                ballot = Ballot(voter, await self._branch(workspace, f"{leaf.id}-voter{voter}"))
                ballots.append(ballot)
                run = await self._agent(leaf, ballot.branch.path, voter)
                ballot.success, ballot.answer, ballot.run_id = run.success, run.answer, run.run_id
                ballot.changes = await asyncio.to_thread(ballot.branch.changes)
                return ballot

        leaf.status = "running"
        self.node_event(leaf, "")
        try:
            result = await vote_async(
                sample, leaf_vote_config(VotingConfig.level(self.voting)), normalize=Ballot.key, red_flag=Ballot.flag
            )
            winner: Ballot = result.winner
            conflicts = await self._merge_branch(leaf, winner.branch, workspace)
        except VoteError as exc:
            leaf.status, leaf.answer = "failed", f"every voter failed ({exc})"
            self.node_event(leaf, f"{leaf.answer}; none of their edits is kept")
            return
        except asyncio.CancelledError:
            leaf.status = "cancelled"
            self.node_event(leaf, "cancelled" + "".join(self._kept(ballot.branch.path) for ballot in ballots))
            ballots.clear()  # Ctrl-C: their edits stay where they are
            raise
        finally:
            _discard({str(ballot.voter): ballot.branch for ballot in ballots})
        leaf.answer, leaf.run_id = winner.answer, winner.run_id
        leaf.status = "failed" if conflicts else "done"
        clash = "; in conflict with edits made meanwhile (both kept between markers): " if conflicts else ""
        self.node_event(leaf, summary(result, ballots) + clash + ", ".join(c.path for c in conflicts))


async def _cancel(tasks: set[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until each has finished (its leaf recorded as cancelled)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _discard(branches: dict[str, Branch]) -> None:
    """Delete the branches' copies (merged, dropped by a rollback, or lost in a vote)."""
    for branch in branches.values():
        branch.discard()
