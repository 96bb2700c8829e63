"""Undo covers commands and commits: each that may change files runs between two workspace snapshots.

File tools snapshot the file they write themselves (``ToolContext.before_write``); a command that
sees the workspace writable (level 3), or a commit (it runs the project's hooks), may change any
file, so the whole workspace is snapshotted before and after it (``CheckpointStore.around_command``).
So is a call of an MCP tool whose server sees the workspace writable (``McpToolSpec.writes_workspace``):
its server is a process like a command, and the call is what it does.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from chrysalis.agent.gate.call import Call, Wrapper
from chrysalis.tools.base import ToolContext, ToolResult
from chrysalis.tools.mcp_client import McpToolSpec

__all__ = ["CheckpointTools", "CommandSnapshot"]

CommandSnapshot = Callable[[str], AbstractContextManager[None]]
"""Given the tool's name, snapshots the workspace around a command (``CheckpointStore.around_command``)."""

_SNAPSHOT_TOOLS = frozenset({"git_commit"})
"""Tools besides commands that may change any file (a commit runs the project's hooks), snapshotted around."""


@dataclass(kw_only=True)
class CheckpointTools(Wrapper):
    """Puts a snapshot around each call that may change any file; no snapshot, no call."""

    snapshot: CommandSnapshot | None
    """None: no snapshots (tests, or a caller with nothing to undo)."""
    context: ToolContext

    async def call(self, call: Call) -> ToolResult:
        """Add the snapshot to the call's ``around`` (entered in the thread that runs it), then run it."""
        snapshot = self.snapshot
        if snapshot is not None and self._may_change_files(call):
            call.around.append(lambda: snapshot(call.spec.name))
        return await self.inner.call(call)

    def _may_change_files(self, call: Call) -> bool:
        """A commit, a command that sees the workspace writable (not the read-only sandbox), or such an MCP server."""
        spec = call.spec
        if isinstance(spec, McpToolSpec):
            return spec.writes_workspace
        return spec.name in _SNAPSHOT_TOOLS or (spec.effect == "shell" and self.context.writable)
