"""Our run's events as ACP session updates: the model's text, tool calls with their status, diffs for edits.

The events (``chrysalis.events``) are the one stream the terminal, ``--json`` and the traces
read; an editor reads it too, through ``EventMapper``. A tool call becomes a ``tool_call`` (status
``pending``) when the model asks for it, ``in_progress`` once it runs (at once, or after the user approved it), and
``completed`` / ``failed`` with its result. An edit carries a diff of the whole file: its text is
read when the call is announced (the tool has not run yet) and again when the result comes.

Whether a call will be asked about is the gate's decision, made after the call is announced; the
mapper asks the same ``Policy`` only to choose the first status (``in_progress`` when the policy
allows the call outright, ``pending`` when it will ask or refuse, or for a tool it does not know).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UserMessageChunk,
)

from chrysalis.events import (
    ApprovalRequest,
    Check,
    Compacted,
    Event,
    FrameworkCall,
    ModelCall,
    RedFlag,
    Refine,
    RunResult,
    Start,
    StepVote,
    TextDelta,
    ToolCall,
    ToolResultEvent,
)
from chrysalis.tools.policy import Policy
from chrysalis.tools.registry import builtin_tools

__all__ = ["EventMapper", "Update", "edited_paths", "tool_kind", "tool_title"]

Update = AgentMessageChunk | AgentThoughtChunk | ToolCallStart | ToolCallProgress | UserMessageChunk
ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "git_status": "read",
    "git_diff": "read",
    "git_log": "read",
    "system_stats": "read",
    "find": "search",
    "grep": "search",
    "edit_file": "edit",
    "write_file": "edit",
    "apply_patch": "edit",
    "repair": "edit",
    "shell": "execute",
    "run_tests": "execute",
    "git_commit": "execute",
    "web_fetch": "fetch",
    "web_search": "fetch",
}
_MAX_DIFF_BYTES = 2_000_000
"""Files larger than this get no diff (an editor would choke on it, and reading it costs)."""
_PREVIEW_CHARS = 4_000


def tool_kind(tool: str) -> ToolKind:
    """The ACP kind of one of our tools (editors pick the icon by it); ``other`` for the rest (MCP tools, ...)."""
    return _KINDS.get(tool, "other")


def tool_title(tool: str, args: dict[str, Any]) -> str:
    """A one-line title for a call, as an editor lists it: ``Read calc.py``, ``Run `pytest -q` ``."""
    path = str(args.get("path", ""))
    titles = {
        "read_file": f"Read {path}",
        "list_dir": f"List {path or '.'}",
        "edit_file": f"Edit {path}",
        "write_file": f"Write {path}",
        "find": f"Find {args.get('pattern', '')}",
        "grep": f"Search {args.get('pattern', '')!r} in {path or '.'}",
        "shell": f"Run `{args.get('command', '')}`",
        "run_tests": "Run the tests",
        "apply_patch": "Apply a patch",
    }
    if tool in titles:
        return titles[tool]
    shown = ", ".join(f"{key}={_short(value)}" for key, value in args.items())
    return f"{tool}({shown})"


def edited_paths(tool: str, args: dict[str, Any]) -> list[str]:
    """The workspace-relative paths a call of ``tool`` would change (for its diff); none for other tools."""
    if tool in ("edit_file", "write_file") and isinstance(args.get("path"), str):
        return [args["path"]]
    if tool == "apply_patch" and isinstance(args.get("patch"), str):
        from chrysalis.tools.base import ToolError
        from chrysalis.tools.patch import parse_patch

        try:
            return [patch.path for patch in parse_patch(args["patch"])]
        except ToolError:
            return []
    return []


@dataclass
class _OpenCall:
    """A call announced and not yet answered: its ACP id and the files it may change, as they were."""

    acp_id: str
    tool: str
    args: dict[str, Any]
    before: dict[Path, str | None] = field(default_factory=dict[Path, str | None])
    asked: bool = False


class EventMapper:
    """Turns one session's events into ACP updates; keeps the open tool calls between their events."""

    def __init__(self, workspace: Path, policy: Policy | None = None) -> None:
        """Map the events of runs in ``workspace``; ``policy`` (the runs') picks each call's first status."""
        self.workspace = workspace.resolve()
        self.policy = policy
        self._open: dict[tuple[str, str], _OpenCall] = {}
        self._count = 0
        self._children: set[str] = set()
        """Sub-agents' run ids: their tool calls are shown, their streamed text is not (their answer is)."""
        self._streamed = ""
        """The main run's text since its last other event, to tell whether the final answer was streamed."""

    def updates(self, event: Event) -> list[Update]:
        """The updates for ``event``; most events (model calls, judge verdicts, ...) have none."""
        if isinstance(event, TextDelta):
            if event.run_id in self._children:
                return []
            self._streamed += event.text
            return [update_agent_message_text(event.text)]
        if isinstance(event, ModelCall):
            return []  # a record for traces: it neither shows nor ends the text streamed before it
        streamed, self._streamed = self._streamed, ""
        if isinstance(event, Start):
            if event.parent_run_id is not None:
                self._children.add(event.run_id)
            return []
        if isinstance(event, ToolCall):
            return [self._announce(event)]
        if isinstance(event, ApprovalRequest):
            call = self._open.get((event.run_id, event.call_id))
            return [update_tool_call(call.acp_id, status="in_progress")] if call and event.approved else []
        if isinstance(event, ToolResultEvent):
            return self._finish(event)
        if isinstance(event, RunResult) and event.run_id not in self._children:
            return self._answer(event, streamed)
        if isinstance(event, Check):
            return [self._check(event)]
        if isinstance(event, RedFlag | Compacted | Refine | FrameworkCall | StepVote):
            return [update_agent_thought_text(_notice(event))]
        return []

    def permission_call(self, tool: str, args: dict[str, Any], reason: str) -> ToolCallUpdate:
        """The tool call a permission request is about: the open call with this tool and these arguments.

        The gate's approver is given (tool, args, reason) and no call id; the call it asks about was
        announced just before, so the oldest open call that matches and was not asked about yet is it.
        """
        call = next((c for c in self._open.values() if c.tool == tool and c.args == args and not c.asked), None)
        if call is None:  # not announced (cannot happen through GatedTools): a call of its own
            self._count += 1
            call = _OpenCall(f"ask-{self._count}", tool, args)
        call.asked = True
        content: list[ToolContent] = [*self._proposal(call), tool_content(text_block(reason))]
        return ToolCallUpdate(
            tool_call_id=call.acp_id,
            title=tool_title(tool, args),
            kind=tool_kind(tool),
            status="pending",
            content=content,
            raw_input=args,
        )

    def abandon(self) -> list[Update]:
        """The run ended (cancelled, stopped) with calls that never answered: each is marked failed."""
        stopped = [
            update_tool_call(
                call.acp_id, status="failed", content=[tool_content(text_block("Stopped before it finished."))]
            )
            for call in self._open.values()
        ]
        self._open.clear()
        return list(stopped)

    def _announce(self, event: ToolCall) -> ToolCallStart:
        self._count += 1
        call = _OpenCall(f"{event.run_id}-{self._count}", event.tool, dict(event.args))
        for rel in edited_paths(event.tool, event.args):
            path = self._inside(rel)
            if path is not None:
                call.before[path] = _read(path)
        self._open[(event.run_id, event.call_id)] = call
        locations = [ToolCallLocation(path=str(p)) for p in call.before] or self._locations(event.args)
        return start_tool_call(
            call.acp_id,
            tool_title(event.tool, event.args),
            kind=tool_kind(event.tool),
            status=self._first_status(event.tool, event.args),
            content=self._proposal(call) or None,
            locations=locations or None,
            raw_input=event.args,
        )

    def _first_status(self, tool: str, args: dict[str, Any]) -> ToolCallStatus:
        """``in_progress`` for a built-in tool the policy allows without asking; ``pending`` otherwise."""
        spec = builtin_tools().get(tool)
        if self.policy is None or spec is None:
            return "pending"
        try:
            validated = spec.args.model_validate(args)
        except ValueError:  # the gate refuses it: it never runs
            return "pending"
        return "in_progress" if self.policy.decide(spec, validated).kind == "allow" else "pending"

    def _finish(self, event: ToolResultEvent) -> list[Update]:
        call = self._open.pop((event.run_id, event.call_id), None)
        if call is None:
            return []
        content: list[ToolContent] = []
        if event.ok:
            for path, before in call.before.items():
                after = _read(path)
                if after is not None and after != before:
                    content.append(tool_diff_content(str(path), after, before))
            if not content:
                content.append(tool_content(text_block(_preview(event.result))))
            output: Any = event.result
        else:
            content.append(tool_content(text_block(event.error or "failed")))
            output = {"error": event.error, "decision": event.decision}
        status: ToolCallStatus = "completed" if event.ok else "failed"
        return [update_tool_call(call.acp_id, status=status, content=content, raw_output=output)]

    def _answer(self, event: RunResult, streamed: str) -> list[Update]:
        """The answer when it was not streamed (a model that cannot stream), and a warning when it is not verified."""
        text = "" if streamed.strip() == event.output.strip() else event.output
        if event.problem:
            text += f"\n\n⚠ Not verified: {event.problem}"
        return [update_agent_message_text(text)] if text.strip() else []

    def _check(self, event: Check) -> ToolCallStart:
        """The framework's own test run after the answer, shown as a finished command."""
        self._count += 1
        where = " (sandbox)" if event.sandboxed else ""
        return start_tool_call(
            f"{event.run_id}-check-{self._count}",
            f"Check: `{event.command}`{where}",
            kind="execute",
            status="completed" if event.passed else "failed",
            content=[tool_content(text_block(_preview(event.report)))],
            raw_output={"passed": event.passed, "exit_code": event.exit_code},
        )

    def _proposal(self, call: _OpenCall) -> list[ToolContent]:
        """What an edit would do, before it runs: the whole file for edit_file/write_file, the patch text else."""
        if call.tool == "apply_patch":
            return [tool_content(text_block(str(call.args.get("patch", ""))))]
        content: list[ToolContent] = []
        for path, before in call.before.items():
            if call.tool == "write_file":
                content.append(tool_diff_content(str(path), str(call.args.get("content", "")), before))
                continue
            old, new = str(call.args.get("old_text", "")), str(call.args.get("new_text", ""))
            if before is not None and old and before.count(old) == 1:
                content.append(tool_diff_content(str(path), before.replace(old, new, 1), before))
            else:  # no single match: the edit will fail; show what it asked for
                content.append(tool_diff_content(str(path), new, old))
        return content

    def _inside(self, rel: str) -> Path | None:
        """``rel`` as an absolute path in the workspace, or None when it points outside."""
        path = (self.workspace / rel).resolve()
        return path if path.is_relative_to(self.workspace) else None

    def _locations(self, args: dict[str, Any]) -> list[ToolCallLocation]:
        path = args.get("path")
        if not isinstance(path, str):
            return []
        inside = self._inside(path)
        if inside is None:
            return []
        start = args.get("start_line")
        return [ToolCallLocation(path=str(inside), line=start if isinstance(start, int) else None)]


def _read(path: Path) -> str | None:
    """A file's text as it is now; None when it does not exist (or is too large to diff)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_DIFF_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _notice(event: RedFlag | Compacted | Refine | FrameworkCall | StepVote) -> str:
    if isinstance(event, StepVote):
        return f"Voted on a critical step ({event.trigger}): {event.samples} samples, winner {event.winner}."
    if isinstance(event, FrameworkCall):
        return f"{event.reason}: Chrysalis runs {event.tool} itself."
    if isinstance(event, RedFlag):
        return f"⚑ {event.kind}: {event.detail}"
    if isinstance(event, Compacted):
        return f"Compacted the conversation: {event.turns_summarised} turns summarised."
    return f"{event.draft_model}'s answer failed the check ({event.reason}); {event.model} takes over."


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:60] + "…"


def _preview(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, indent=1)
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS] + "\n…"
