"""The merge node's conflicts: the task of the leaf that resolves them, and the check that it did.

When two leaves of a split changed the same lines, ``branches.merge`` writes both versions into the
file between markers. A ``merge`` leaf of its own (an ``editor`` sub-agent in the split node's
workspace) is asked to keep what both were for and remove the markers; the merge node succeeds only
if no marker is left. If some are, the file stays as it is, with both sides in it: nothing is lost,
and the node is failed so the person sees it.
"""

from __future__ import annotations

from pathlib import Path

from chrysalis.decomposition.branches import Conflict, has_markers
from chrysalis.decomposition.plan import PlanNode

__all__ = ["conflict_task", "unresolved"]


def conflict_task(conflicts: list[tuple[PlanNode, Conflict]]) -> str:
    """The task of the leaf that resolves ``conflicts`` (each with the child whose edit met the workspace)."""
    lines = [f"- {conflict.describe()}; {child.id}'s task was: {child.task}" for child, conflict in conflicts]
    return (
        "Resolve merge conflicts left when the subtasks' edits were combined:\n"
        + "\n".join(lines)
        + "\nIn a file with markers, the lines between '<<<<<<< workspace' and '=======' are the version "
        "already there (from the subtasks merged before), and the lines between '=======' and '>>>>>>> NODE' "
        "are the version of that subtask. Edit each file so that it keeps what both versions were for, "
        "and delete every marker line."
    )


def unresolved(workspace: Path, conflicts: list[tuple[PlanNode, Conflict]]) -> list[str]:
    """The conflicting files that still hold markers."""
    left: list[str] = []
    for _child, conflict in conflicts:
        file = workspace / conflict.path
        if conflict.kind == "lines" and file.is_file() and has_markers(file.read_bytes()):
            left.append(conflict.path)
    return sorted(set(left))
