"""The decomposition loop (seed 001): plan with checkpoints, roll back on explosion, run leaves, merge, archive.

1. **Select**: the archive's elite for the task type whose task shares the most words with this one
   (nearest neighbour) is replayed as a hint to the planner ("a similar task was split as ...").
2. **Plan**, breadth first: each node is split (or declared atomic) by the ``Planner``, voted at
   the priority's level. A ``pre-branch`` checkpoint is pushed before each split (``checkpoints.py``).
   After each split the phenotype is checked against the priority's limits; an explosion (depth,
   breadth, cost, context) rolls the tree back to the node's ``pre-branch`` checkpoint and marks the
   node ``inline``: it will run whole, as one leaf. A node at the depth limit is ``inline`` too.
3. **Execute** (``execute.py``): every leaf runs as a sub-agent (``AgentSession.child``, the leaf's
   profile, the parent's policy), a few at a time; one that may write runs in a branch, its own copy
   of the workspace (``branches.py``). A split node whose children's rolling success rate falls below
   the limit is rolled back while the work goes on (its children pruned, their branches dropped) and
   runs whole, voted when the priority votes (``ballots.py``). Spending past the cost limit cancels
   the leaves still to run.
4. **Merge**: each split node's branches are merged into its workspace, three ways per file; a
   conflict goes to a ``merge`` leaf (``conflicts.py``). Its answer is its children's answers, in
   order; the root's is the result.
5. **Archive**: a plan whose leaves all succeeded is offered to the MAP-Elites archive (one elite per
   task type and phenotype bin), where it may be replayed for the next similar task.

Every node change is a ``plan_node`` event and the end a ``plan_end`` event; the sub-agents' own
events follow with ``parent_run_id`` set to this decomposition's run id. Ctrl-C cancels the leaves
and leaves each one's run recorded.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from chrysalis.agent.learning import task_type
from chrysalis.decomposition.checkpoints import CheckpointStack
from chrysalis.decomposition.execute import Spend, TreeRunner, succeeded
from chrysalis.decomposition.plan import DecompositionPhenotype, PlanNode, explosion, phenotype_bin, score
from chrysalis.decomposition.planner import Planner
from chrysalis.events import PlanEnd, PlanNodeEvent, Start
from chrysalis.evolve.priority import DecompositionLimits, PriorityPlan, plan_of
from chrysalis.stores.patterns import Pattern

if TYPE_CHECKING:
    from chrysalis.agent.session import AgentSession

__all__ = ["Decomposer", "DecompositionResult", "leaf_profile"]

_RESEARCH = re.compile(
    r"^\s*(find|read|research|explain|look|search|list|summari[sz]e|describe|check|investigate)\b", re.IGNORECASE
)
_VCS = re.compile(r"\b(commit|git|branch|merge request|pull request)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9_]{3,}")


def leaf_profile(task: str) -> str:
    """The sub-agent profile a leaf's wording asks for: researcher, vcs, or editor."""
    if _VCS.search(task):
        return "vcs"
    return "researcher" if _RESEARCH.search(task) else "editor"


@dataclass
class DecompositionResult:
    """How a decomposition ended: its answer, the final tree and phenotype, and what it learned."""

    run_id: str
    success: bool
    output: str
    tree: PlanNode
    phenotype: DecompositionPhenotype
    explosions: list[str] = field(default_factory=list[str])
    archived: bool = False
    replayed: str | None = None


class Decomposer:
    """Runs one task by geometric decomposition, with ``session`` as the parent of every sub-agent."""

    def __init__(self, session: AgentSession, *, planner: Planner | None = None, concurrency: int = 2) -> None:
        from chrysalis.voting import VotingConfig

        self.session = session
        self.plan: PriorityPlan = plan_of(session.settings)
        self.limits: DecompositionLimits = self.plan.limits
        self.planner = planner or Planner(session.model, VotingConfig.level(self.plan.voting))
        self.concurrency = concurrency
        self.run_id = uuid.uuid4().hex[:12]
        self._spend = Spend()
        self.checkpoints = CheckpointStack()

    async def run(self, task: str) -> DecompositionResult:
        """Plan, execute, merge and archive ``task``; cancelling it cancels every running leaf."""
        started = time.perf_counter()
        s = self.session.settings
        kind = task_type(task)
        self.session.emit(
            Start(
                run_id=self.run_id,
                task=task,
                model=self.session.active_model,
                mode=s.mode,
                level=s.level,
                workspace=str(s.workspace),
                task_type=kind,
                profile="decompose",
                profile_reason="geometric decomposition",
                priority=s.priority,
                priority_plan=self.plan.to_json(),
            )
        )
        success = False
        try:
            replay = self._nearest(task, kind)
            root, explosions = await self._plan(task, replay)
            await self._runner(explosions).run(root)
            output = _merge(root)
            phenotype = DecompositionPhenotype.of(root, cost_usd=self._spend.cost_usd, context=self._spend.context)
            late = explosion(phenotype, self.limits)
            if late:
                explosions.append(f"{late} after execution")
            success = succeeded(root)
            archived = self._archive(task, kind, root, phenotype, replay, success, time.perf_counter() - started)
            self.session.emit(
                PlanEnd(
                    run_id=self.run_id,
                    success=success,
                    output=output,
                    phenotype=phenotype.to_json(),
                    explosions=tuple(explosions),
                    archived=archived,
                    replayed=replay.task if replay else None,
                )
            )
            return DecompositionResult(
                self.run_id, success, output, root, phenotype, explosions, archived, replay.task if replay else None
            )
        finally:
            self.session.stores.evals.log(
                run_id=self.run_id,
                profile="decompose",
                task_type=kind,
                model=self.session.active_model,
                success=success,
                duration_ms=round((time.perf_counter() - started) * 1000, 1),
                cost_usd=self._spend.cost_usd,
                input_tokens=self._spend.context,
                output_tokens=0,
            )

    # -- planning ----------------------------------------------------------------------------------

    async def _plan(self, task: str, replay: Pattern | None) -> tuple[PlanNode, list[str]]:
        root = PlanNode(task, profile=leaf_profile(task))
        self._node(root)
        hint = _hint(replay)
        explosions: list[str] = []
        self.checkpoints.push(root, self._spend.context, "initial", root)
        queue = [root.id]
        while queue:
            node = root.find(queue.pop(0))
            if node.depth >= self.limits.max_depth:
                node.op = "inline"
                self._node(node, detail=f"depth limit {self.limits.max_depth}: runs whole")
                continue
            self.checkpoints.push(root, self._spend.context, "pre-branch", node)
            split = await self.planner.split(node.task, max_subtasks=self.limits.max_breadth, hint=hint)
            self._spend.cost_usd += split.cost_usd
            self._spend.context += split.tokens
            if split.atomic:
                self._node(node, detail=f"atomic ({split.detail})")
                continue
            node.op = "decompose"
            node.children = [
                PlanNode(sub, node.depth + 1, parent=node.id, profile=leaf_profile(sub)) for sub in split.subtasks
            ]
            phenotype = DecompositionPhenotype.of(root, cost_usd=self._spend.cost_usd, context=self._spend.context)
            boom = explosion(phenotype, self.limits)
            if boom:
                explosions.append(f"{boom} at {node.id}")
                for child in node.children:
                    child.status = "pruned"
                    self._node(child, detail=f"rolled back: {boom} past its limit")
                checkpoint = self.checkpoints.before_split(node.id)
                root, self._spend.context = checkpoint.tree.snapshot(), checkpoint.context
                kept = root.find(node.id)
                kept.op = "inline"
                self._node(kept, detail=f"explosion ({boom}): rolled back to its pre-branch checkpoint; runs whole")
                continue
            self._node(node, detail=f"split into {len(node.children)} ({split.detail})")
            for child in node.children:
                self._node(child)
            queue.extend(child.id for child in node.children)
        return root, explosions

    def _archive(
        self,
        task: str,
        kind: str,
        root: PlanNode,
        phenotype: DecompositionPhenotype,
        replay: Pattern | None,
        success: bool,
        seconds: float,
    ) -> bool:
        """Record the replayed pattern's outcome, and offer a plan that succeeded to the archive: kept or not."""
        patterns = self.session.stores.patterns
        if replay is not None:
            patterns.record(replay, success=success, seconds=seconds)
        if not success:
            return False
        steps, bin_ = root.steps(), phenotype_bin(phenotype)
        mine = Pattern(kind, bin_, task, self.session.settings.priority, steps, phenotype.to_json(), score(phenotype))
        return patterns.offer(replace(mine, successes=1, total_seconds=seconds))

    def _runner(self, explosions: list[str]) -> TreeRunner:
        """What executes the plan (``execute.py``), under this decomposition's limits, spending and checkpoints."""
        return TreeRunner(
            self.session,
            self.run_id,
            self.limits,
            spend=self._spend,
            checkpoints=self.checkpoints,
            explosions=explosions,
            node_event=lambda node, detail: self._node(node, detail=detail),
            voting=self.plan.voting,
            concurrency=self.concurrency,
        )

    def _nearest(self, task: str, kind: str) -> Pattern | None:
        """The archived elite of this task type to replay: close to ``task`` and good at being replayed.

        Closeness is the share of words the tasks have in common (above 0.2, or no replay); the rank is
        closeness times the pattern's chance of success on record (``Pattern.success_estimate``), then
        its score: a close pattern that kept failing when replayed loses to a less close one that worked.
        """
        words = set(_WORD.findall(task.lower()))
        best: tuple[float, float, Pattern] | None = None
        for pattern in self.session.stores.patterns.elites(kind):
            theirs = set(_WORD.findall(pattern.task.lower()))
            overlap = len(words & theirs) / max(1, len(words | theirs))
            rank = (overlap * pattern.success_estimate, pattern.score)
            if overlap > 0.2 and (best is None or rank > best[:2]):
                best = (*rank, pattern)
        return best[2] if best else None

    def _node(self, node: PlanNode, *, detail: str = "") -> None:
        self.session.emit(
            PlanNodeEvent(
                run_id=self.run_id,
                node_id=node.id,
                parent_id=node.parent,
                task=node.task,
                depth=node.depth,
                op=node.op,
                profile=node.profile,
                status=node.status,
                detail=detail[:500],
                agent_run_id=node.run_id,
            )
        )


def _merge(node: PlanNode) -> str:
    """A node's answer: a leaf's own, or its children's answers in order (the merge op)."""
    if not node.children:
        return node.answer or f"({node.status})"
    node.op = node.op if node.op == "decompose" else "merge"
    parts = [f"- {child.task}: {_merge(child)}" for child in node.children]
    node.answer = "\n".join(parts)
    return node.answer


def _hint(pattern: Pattern | None) -> str:
    if pattern is None:
        return "none"
    first = [step["task"] for step in pattern.steps if step.get("depth") == 1]
    return f"A similar task ({pattern.task!r}) was split into: " + "; ".join(first) if first else "none"


def describe(result: DecompositionResult) -> dict[str, Any]:
    """The result as JSON-ready data."""
    return {
        "run_id": result.run_id,
        "success": result.success,
        "output": result.output,
        "phenotype": result.phenotype.to_json(),
        "explosions": result.explosions,
        "archived": result.archived,
        "replayed": result.replayed,
        "plan": result.tree.steps(),
    }
