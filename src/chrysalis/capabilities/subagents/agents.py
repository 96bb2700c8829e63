"""Sub-agents (seed 000's spawn): the model hands a part of its task to an agent of its own.

Three tools, offered to a run whose profile is ``all`` (and never to a sub-agent, so the tree is
one level deep): ``spawn_agent(task, profile)`` starts a sub-agent and returns its id at once;
``agent_status(id)`` waits for it (or, with ``wait=false``, reports where it is) and returns its
answer, steps and cost; ``cancel_agent(id)`` stops it. Several run concurrently in the parent's
event loop, each with its own context (a fresh history and system prompt).

A sub-agent can only narrow its parent's policy: the same workspace and rules, a level no higher, a
mode whose effects the parent's mode has, and its profile's tools, of which its own level and mode
decide what is offered and what runs (only tools the parent's caller gave it, if the caller chose them).
A request for a wider level or mode is refused with what the parent allows. Its budget is carved from the
parent's: half of what is left after the parent's own spending and the other live sub-agents'
shares, and what it spends is added to the parent's run. Its events go to the same stream and traces
with its own ``run_id``; its ``start`` event names the ``parent_run_id``. When the parent's run ends
for any reason (an answer, a limit, Ctrl-C), sub-agents still running are cancelled and awaited,
so each records its ``error`` event and eval row: the stores stay consistent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol, cast

from pydantic import Field

from chrysalis.config import Settings
from chrysalis.config.choices import Mode
from chrysalis.errors import ChrysalisError
from chrysalis.events import RunResult
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, at_most
from chrysalis.tools.policy import Policy

__all__ = ["SUBAGENT_PROFILES", "SUBAGENT_TOOLS", "ChildSession", "Spawn", "SubAgents"]

SUBAGENT_PROFILES = ("editor", "researcher", "vcs", "all")
SUBAGENT_TOOLS = ("spawn_agent", "agent_status", "cancel_agent")
MAX_LIVE = 4
"""Sub-agents that may run at once; a fifth spawn is refused until one ends."""
DEFAULT_CHILD_STEPS = 15
BUDGET_SHARE = 0.5
"""The part of the parent's remaining budget a new sub-agent gets."""

Status = Literal["running", "done", "failed", "cancelled"]


class ChildSession(Protocol):
    """What a sub-agent's session must do for its parent (``AgentSession`` does all of it)."""

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        """The sub-agent's tools."""
        ...

    @property
    def total_cost_usd(self) -> float:
        """What its runs have spent (USD)."""
        ...

    async def run(self, task: str) -> RunResult:
        """Run the sub-agent's task to its end."""
        ...

    def close(self) -> None:
        """Release what the session holds."""
        ...


Spawn = Callable[[Settings, str, str], ChildSession]
"""Starts a sub-agent's session: (its narrowed settings, its tool profile, the parent's run id) -> the session.

Given by the parent's session, so this module never imports the session (no import cycle)."""


class SpawnArgs(ToolArgs):
    """Arguments of spawn_agent."""

    task: str = Field(description="What the sub-agent should do, complete in itself (it sees nothing else).")
    profile: Literal["editor", "researcher", "vcs", "all"] = Field(
        default="editor",
        description="Its tools: editor (read and edit files), researcher (read, search, web), "
        "vcs (git), all (everything this run has).",
    )
    mode: str | None = Field(default=None, description="Its mode; default: this run's. It may only be narrower.")
    level: int | None = Field(default=None, ge=0, le=3, description="Its security level; at most this run's.")
    max_steps: Annotated[int | None, at_most(100)] = Field(
        default=None, ge=1, le=100, description="Most model requests it may make."
    )


class StatusArgs(ToolArgs):
    """Arguments of agent_status."""

    id: str | None = Field(default=None, description="The sub-agent's id; omit to list them all.")
    wait: bool = Field(default=True, description="Wait until it has finished (the usual way to collect its answer).")


class CancelArgs(ToolArgs):
    """Arguments of cancel_agent."""

    id: str = Field(description="The sub-agent to stop.")


@dataclass
class Child:
    """One sub-agent: what it was asked, under which policy, and how it is doing."""

    id: str
    task: str
    settings: Settings
    session: ChildSession
    runner: asyncio.Task[None] | None = None
    status: Status = "running"
    result: RunResult | None = None
    error: str | None = None
    cost_usd: float = 0.0

    def report(self) -> dict[str, Any]:
        """What the parent's model reads about this sub-agent."""
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "task": self.task,
            "level": self.settings.level,
            "mode": self.settings.mode,
        }
        if self.result is not None:
            out |= {
                "answer": self.result.output,
                "success": self.result.success,
                "verified": self.result.verified,
                "steps": self.result.steps,
                "cost_usd": round(self.result.cost_usd, 6),
            }
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass
class SubAgents:
    """The sub-agents of one parent run."""

    spawn: Spawn
    parent_settings: Settings
    parent_run_id: str
    spent: Callable[[], float]
    """The parent run's own spending so far (USD), for carving budgets."""
    charge: Callable[[float], None]
    """Adds a finished sub-agent's cost to the parent run."""
    children: dict[str, Child] = field(default_factory=dict[str, Child])
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def tools(self) -> dict[str, ToolSpec]:
        """``spawn_agent``, ``agent_status`` and ``cancel_agent``, bound to this run."""

        def sync_only(_args: Any, _ctx: ToolContext) -> ToolResult:
            return ToolResult.failure("Sub-agent tools run only inside an agent run.")

        specs = [
            ToolSpec(
                "spawn_agent",
                "Start a sub-agent on a self-contained part of the task; returns its id at once.",
                SpawnArgs,
                "read",
                0,
                sync_only,
                arun=self._spawn,
            ),
            ToolSpec(
                "agent_status",
                "Wait for a sub-agent and get its answer (or list all sub-agents).",
                StatusArgs,
                "read",
                0,
                sync_only,
                arun=self._status,
            ),
            ToolSpec(
                "cancel_agent",
                "Stop a sub-agent that is no longer needed.",
                CancelArgs,
                "read",
                0,
                sync_only,
                arun=self._cancel,
            ),
        ]
        return {spec.name: spec for spec in specs}

    async def close(self) -> None:
        """Cancel every sub-agent still running and wait until each has recorded how it ended."""
        live = [c.runner for c in self.children.values() if c.runner is not None and not c.runner.done()]
        for runner in live:
            runner.cancel()
        if live:
            await asyncio.gather(*live, return_exceptions=True)

    # -- the tools ------------------------------------------------------------------------------------

    async def _spawn(self, args: SpawnArgs, _ctx: ToolContext) -> ToolResult:
        live = sum(1 for c in self.children.values() if c.status == "running")
        if live >= MAX_LIVE:
            raise ToolError(f"{live} sub-agents are running, the most at once; collect one with agent_status first.")
        if not args.task.strip():
            raise ToolError("The task is empty; say what the sub-agent should do.")
        settings = self._narrowed(args)
        child_id = f"sub-{next(self._ids)}"
        session = self.spawn(settings, args.profile, self.parent_run_id)
        child = Child(id=child_id, task=args.task, settings=settings, session=session)
        self.children[child_id] = child
        child.runner = asyncio.create_task(self._run(child), name=f"chrysalis {child_id}")
        report = child.report() | {
            "budget_usd": settings.budget,
            "max_steps": settings.max_steps,
            "tools": sorted(session.tools),
        }
        return ToolResult.success(report)

    async def _status(self, args: StatusArgs, _ctx: ToolContext) -> ToolResult:
        if args.id is None:
            return ToolResult.success([c.report() for c in self.children.values()] or "No sub-agents yet.")
        child = self._child(args.id)
        if args.wait and child.runner is not None:
            await asyncio.wait([child.runner])
        return ToolResult.success(child.report())

    async def _cancel(self, args: CancelArgs, _ctx: ToolContext) -> ToolResult:
        child = self._child(args.id)
        if child.runner is not None and not child.runner.done():
            child.runner.cancel()
            await asyncio.wait([child.runner])
        return ToolResult.success(child.report())

    # -- helpers --------------------------------------------------------------------------------------

    def _child(self, child_id: str) -> Child:
        child = self.children.get(child_id)
        if child is None:
            known = ", ".join(self.children) or "none yet"
            raise ToolError(f"No sub-agent {child_id!r}. Sub-agents of this run: {known}.")
        return child

    def _narrowed(self, args: SpawnArgs) -> Settings:
        """The child's settings: the parent's, narrowed as asked; asking for more is a ToolError."""
        parent = self.parent_settings
        child = Policy.from_settings(parent).narrowed(level=args.level, mode=args.mode)  # asking for more: refused
        steps = min(args.max_steps or DEFAULT_CHILD_STEPS, parent.max_steps)
        return dataclasses.replace(
            parent,
            level=child.level,
            mode=cast(Mode, child.mode),  # narrowed checked it is one of MODES
            max_steps=steps,
            budget=self._carved_budget(),
            profile=args.profile,
        )

    def _carved_budget(self) -> float | None:
        budget = self.parent_settings.budget
        if budget is None:
            return None
        reserved = sum(c.settings.budget or 0.0 for c in self.children.values() if c.status == "running")
        left = budget - self.spent() - reserved
        if left <= 0:
            raise ToolError(f"No budget is left for a sub-agent (--budget ${budget:g}, spent or reserved: all).")
        return round(left * BUDGET_SHARE, 6)

    async def _run(self, child: Child) -> None:
        """Run the child to its end; how it ended is kept on ``child`` (never raised, but for cancellation)."""
        try:
            child.result = await child.session.run(child.task)
            child.status = "done" if child.result.success else "failed"
        except asyncio.CancelledError:
            child.status, child.error = "cancelled", "cancelled before it finished"
            raise
        except ChrysalisError as exc:  # a limit, a refusal, a model error: the parent's model reads it
            child.status, child.error = "failed", str(exc)
        finally:
            child.cost_usd = child.session.total_cost_usd
            self.charge(child.cost_usd)
            child.session.close()
