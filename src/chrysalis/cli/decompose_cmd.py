"""``chrysalis decompose "TASK"``: the plan as a live tree, each node's status as it changes.

On a terminal the tree is redrawn in place (rich ``Live``); with ``--json`` every event is one JSON
line (``plan_node``, ``plan_end`` and the sub-agents' own events, docs/events.md); with no terminal
each node change is one line.
"""

from __future__ import annotations

import asyncio
import sys

from rich.console import Console
from rich.live import Live
from rich.text import Text
from rich.tree import Tree

from chrysalis.agent.session import AgentSession
from chrysalis.cli.approval import terminal_approver
from chrysalis.cli.render import JsonRenderer, RichRenderer, print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.decomposition.run import Decomposer
from chrysalis.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UsageError
from chrysalis.events import Event, PlanEnd, PlanNodeEvent, Start, ToolCall

__all__ = ["PlanTree", "decompose_command"]

_STYLE = {
    "planned": "dim",
    "running": "yellow",
    "done": "green",
    "failed": "red",
    "pruned": "magenta",
    "cancelled": "red",
}
_MARK = {"planned": "·", "running": "▶", "done": "✔", "failed": "✘", "pruned": "↺", "cancelled": "■"}


class PlanTree:
    """The plan as a rich ``Tree``, kept up to date from ``plan_node`` events and the sub-agents' tool calls."""

    def __init__(self) -> None:
        self.nodes: dict[str, PlanNodeEvent] = {}
        self.order: list[str] = []
        self.activity: dict[str, str] = {}
        """The last thing each leaf's sub-agent did, by node id."""
        self._leaf_of_run: dict[str, str] = {}
        self.end: PlanEnd | None = None

    def update(self, event: Event) -> None:
        """Take one event into the tree."""
        if isinstance(event, PlanNodeEvent):
            if event.node_id not in self.nodes:
                self.order.append(event.node_id)
            self.nodes[event.node_id] = event
        elif isinstance(event, Start) and event.parent_run_id is not None:
            running = [n for n in self.nodes.values() if n.status == "running" and n.node_id not in self.activity]
            if running:
                self._leaf_of_run[event.run_id] = running[0].node_id
                self.activity[running[0].node_id] = "started"
        elif isinstance(event, ToolCall) and event.run_id in self._leaf_of_run:
            self.activity[self._leaf_of_run[event.run_id]] = f"→ {event.tool}"
        elif isinstance(event, PlanEnd):
            self.end = event

    def render(self) -> Tree:
        """The tree as it stands."""
        roots = [n for n in self.order if self.nodes[n].parent_id is None]
        tree = Tree(Text("plan", "bold"))
        for root in roots:
            self._add(tree, root)
        return tree

    def _add(self, parent: Tree, node_id: str) -> None:
        node = self.nodes[node_id]
        label = Text.assemble(
            (f"{_MARK.get(node.status, '?')} ", _STYLE.get(node.status, "")), (f"[{node.op}] ", "cyan"), node.task[:100]
        )
        if node.status == "running" and node_id in self.activity:
            label.append(f"  {self.activity[node_id]}", "dim")
        elif node.detail and node.status in ("done", "failed", "pruned"):
            label.append(f"  {' '.join(node.detail.split())[:80]}", "dim")
        branch = parent.add(label)
        for child in (n for n in self.order if self.nodes[n].parent_id == node_id):
            self._add(branch, child)


def decompose_command(task: str, flags: SettingFlags, *, json_output: bool) -> int:
    """Decompose and run ``task``; exit 0 when every leaf succeeded, 1 otherwise."""
    if not task.strip():
        raise UsageError('The task is empty: say what to do, e.g. chrysalis decompose "add tests for utils.py".')
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    tree = PlanTree()
    live = not json_output and sys.stdout.isatty()
    fallback = JsonRenderer() if json_output else RichRenderer()
    console = Console()
    screen = Live(tree.render(), console=console, refresh_per_second=8) if live else None

    def on_event(event: Event) -> None:
        tree.update(event)
        if screen is not None:
            screen.update(tree.render())
        else:
            fallback(event)

    session = AgentSession(
        settings, approver=None if json_output else terminal_approver(lambda: settings.workspace), on_event=on_event
    )
    try:
        if screen is not None:
            with screen:
                result = asyncio.run(Decomposer(session).run(task))
            console.print(Text.assemble(("✔ " if result.success else "✘ ", "bold"), result.output))
        else:
            result = asyncio.run(Decomposer(session).run(task))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        session.close()
    return EXIT_OK if result.success else EXIT_FAILED
