"""The decomposition's checkpoints (seed 001's ``DecompositionCheckpoint``): a stack of the plan as it was.

A checkpoint is taken at the start (``initial``), before each node is split (``pre-branch``) and
after a split node's children have all finished and merged (``post-merge``). An explosion rolls a
node back to its own ``pre-branch`` checkpoint: while planning, the whole plan as it was before the
split; while executing, that node alone (its children pruned), since other branches have run on
meanwhile and their results stand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from chrysalis.decomposition.plan import PlanNode

__all__ = ["Checkpoint", "CheckpointStack", "Reason"]

Reason = Literal["initial", "pre-branch", "post-merge"]


@dataclass(frozen=True)
class Checkpoint:
    """The plan at one moment: its tree (a copy), the tokens in play then, why and at which node it was taken."""

    tree: PlanNode
    context: int
    reason: Reason
    node_id: str


class CheckpointStack:
    """Checkpoints in the order taken; a rollback finds a node's ``pre-branch`` one."""

    def __init__(self) -> None:
        """An empty stack: push the ``initial`` checkpoint first."""
        self._stack: list[Checkpoint] = []

    def push(self, root: PlanNode, context: int, reason: Reason, node: PlanNode) -> Checkpoint:
        """Take a checkpoint of ``root`` (copied) at ``node``."""
        checkpoint = Checkpoint(root.snapshot(), context, reason, node.id)
        self._stack.append(checkpoint)
        return checkpoint

    def before_split(self, node_id: str) -> Checkpoint:
        """The latest ``pre-branch`` checkpoint of ``node_id`` (else the ``initial`` one): where its rollback goes."""
        for checkpoint in reversed(self._stack):
            if checkpoint.node_id == node_id and checkpoint.reason == "pre-branch":
                return checkpoint
        return self._stack[0]

    @property
    def reasons(self) -> list[Reason]:
        """Each checkpoint's reason, oldest first."""
        return [checkpoint.reason for checkpoint in self._stack]
