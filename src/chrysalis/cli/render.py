"""Show a run's events: a human view with rich, or one JSON object per line for programs.

Both renderers read the same event stream the trace store records (``chrysalis.events``),
so ``--json`` output, the terminal and the traces always agree.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, assert_never

from rich.console import Console
from rich.text import Text

from chrysalis.events import (
    ApprovalRequest,
    Check,
    Compacted,
    ErrorEvent,
    Event,
    FrameworkCall,
    JudgeVerdict,
    ModelCall,
    PlanEnd,
    PlanNodeEvent,
    RedFlag,
    Refine,
    RepairEnd,
    RepairRound,
    RunResult,
    Start,
    StepVote,
    TextDelta,
    ToolCall,
    ToolResultEvent,
)
from chrysalis.redact import current as current_redactor

__all__ = ["JsonRenderer", "RichRenderer", "print_warnings"]

_PREVIEW_CHARS = 160


def print_warnings(warnings: tuple[str, ...]) -> None:
    """Settings warnings (an untrusted folder's ignored keys) on stderr, where ``--json`` output is not."""
    if warnings:
        console = Console(stderr=True, highlight=False)
        for warning in warnings:
            console.print(Text.assemble(("warning: ", "bold yellow"), warning), soft_wrap=True)


class JsonRenderer:
    """Print each event as one JSON line (the schema is in docs/events.md), secrets redacted (``chrysalis.redact``)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout

    def __call__(self, event: Event) -> None:
        """Write one event and flush, so readers see it at once."""
        self.stream.write(json.dumps(current_redactor().value(event.to_json()), default=str) + "\n")
        self.stream.flush()


def _preview(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS] + "…"


def _args_preview(args: dict[str, Any]) -> str:
    return ", ".join(f"{key}={_preview(value)}" for key, value in args.items())


class RichRenderer:
    """Show the run as it happens: the model's text as it streams, tool calls, results, the cost."""

    def __init__(self, console: Console | None = None, errors: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self.errors = errors or Console(stderr=True, highlight=False)
        """Where a run's error goes: stderr, never wrapped, so a path in it can be grepped and pasted whole."""
        self._streamed = ""
        """Text printed since the last other event; the line is still open while it is non-empty."""
        self._answer = ""
        """The last text the model streamed, kept across the final check so the answer is not printed twice."""
        self._children: dict[str, str] = {}
        """Sub-agents' run ids (from ``start`` events with a ``parent_run_id``) and their labels."""

    def __call__(self, event: Event) -> None:
        """Print one event; streamed text stays on its line until another event comes."""
        if isinstance(event, ModelCall):
            return  # a record for traces and --json; the final line shows the totals
        if isinstance(event, Start) and event.parent_run_id is not None:
            self._children[event.run_id] = f"sub {len(self._children) + 1}"
        if event.run_id in self._children:
            if self._streamed and not self._streamed.endswith("\n") and not isinstance(event, TextDelta):
                self.console.print()  # end the parent's open line; its text goes on after the sub-agent's line
                self._streamed += "\n"
            self._show_child(event, self._children[event.run_id])
            return
        if isinstance(event, TextDelta):
            self._show(event)
            self._streamed += event.text
            return
        streamed, self._streamed = self._streamed, ""
        if streamed and not streamed.endswith("\n"):
            self.console.print()
        if streamed or isinstance(event, ToolCall):
            self._answer = streamed
        self._show(event)

    def _show(self, event: Event) -> None:
        """Print one event other than streamed text."""
        c = self.console
        if isinstance(event, TextDelta):
            c.print(Text(event.text), end="", soft_wrap=True)
        elif isinstance(event, Start):
            self._start(event)
        elif isinstance(event, ToolCall):
            c.print(Text.assemble(("→ ", "cyan"), (event.tool, "bold cyan"), f"({_args_preview(event.args)})"))
        elif isinstance(event, ToolResultEvent):
            self._tool_result(event)
        elif isinstance(event, ApprovalRequest | JudgeVerdict | RedFlag | Compacted | FrameworkCall | StepVote):
            self._notice(event)
        elif isinstance(event, Check):
            self._check(event)
        elif isinstance(event, RunResult):
            self._result(event, self._answer)
        elif isinstance(event, ErrorEvent):
            self.errors.print(
                Text.assemble(("✘ ", "bold red"), (f"{event.reason}: ", "red"), event.message), soft_wrap=True
            )
        elif isinstance(event, PlanNodeEvent | PlanEnd):
            self._plan(event)
        elif isinstance(event, Refine | RepairRound | RepairEnd):
            self._mend(event)
        elif not isinstance(event, ModelCall):  # ModelCall: returned before, never shown
            assert_never(event)

    def _vote(self, event: StepVote) -> None:
        """A voted step: one dim line, how many samples and how the winner led."""
        lead = max(event.candidates.values(), default=0)
        flags = "".join(f", {n} {flag}" for flag, n in event.flagged.items())
        agreed = "agreed" if len(event.candidates) == 1 else f"{lead} for the winner of {len(event.candidates)} replies"
        self.console.print(Text(f"  ⚖ vote ({event.trigger}): {_n(event.samples, 'sample')}, {agreed}{flags}", "dim"))

    def _tool_result(self, event: ToolResultEvent) -> None:
        if event.ok:
            self.console.print(Text.assemble(("  ✓ ", "green"), (_preview(event.result), "dim")))
        else:
            self.console.print(Text.assemble(("  ✗ ", "red"), (_preview(event.error), "red")))

    def _mend(self, event: Refine | RepairRound | RepairEnd) -> None:
        """How a failing answer is mended: a stronger model refining it, or repair's rounds and its patch."""
        c = self.console
        if isinstance(event, Refine):
            c.print(
                Text.assemble(
                    ("⇪ refine: ", "bold yellow"),
                    f"{event.draft_model}'s answer failed the check "
                    f"({_preview(event.reason)}); {event.model} takes over",
                )
            )
            return
        if isinstance(event, RepairRound):
            where = ", ".join(f"{s['path']}:{s['function']}" for s in event.suspects)
            flags = "".join(f", {n} {flag}" for flag, n in event.flagged.items())
            templates = f" and {_n(event.templates, 'template')}" if event.templates else ""
            line = (
                f"round {event.round}: {_n(event.samples, 'sample')}{templates} for {where}: "
                f"{event.passed} passed, {event.unusable} unusable{flags} ({event.seconds:g} s)"
            )
            c.print(Text(line, "dim"))
            return
        if event.diff:
            from rich.syntax import Syntax

            c.print(Syntax(event.diff, "diff", theme="ansi_dark", background_color="default"))
        mark, style = ("✔", "green") if event.success else ("✘", "red")
        applied = "applied (chrysalis undo takes it back)" if event.applied else "not applied"
        templates = f", {_n(event.templates, 'template')}" if event.templates else ""
        cost = f", ${event.cost_usd:.4f}" if event.cost_usd else ""
        summary = (
            f"{_n(event.samples, 'sample')}{templates}, {event.passed} passed, "
            f"{_n(event.votes, 'vote')} for the winner, {_n(event.rounds, 'round')}, "
            f"{_n(event.tokens, 'token')}{cost}, {event.seconds:g} s"
        )
        head = f"{applied}: {summary}" if event.success else f"{event.problem}: {summary}"
        c.print(Text.assemble((f"{mark} ", f"bold {style}"), head))

    def _notice(self, event: ApprovalRequest | JudgeVerdict | RedFlag | Compacted | FrameworkCall | StepVote) -> None:
        """An approval asked, the judge's verdict, a red flag, a compaction, a vote or the framework's own call."""
        if isinstance(event, StepVote):
            self._vote(event)
        elif isinstance(event, FrameworkCall):
            why = "the tests still fail" if event.trigger == "failed_check" else "the model stalled"
            self.console.print(Text.assemble(("  ↻ ", "cyan"), f"{why}: Chrysalis runs {event.tool} itself"))
        elif isinstance(event, Compacted):
            self.console.print(
                Text(
                    f"  ⋯ compacted the conversation: {_n(event.turns_summarised, 'turn')} summarised, "
                    f"about {event.tokens_before:,} → {event.tokens_after:,} tokens",
                    "dim",
                )
            )
        elif isinstance(event, ApprovalRequest):
            verdict = ("approved", "green") if event.approved else ("declined", "red")
            self.console.print(Text.assemble(("  ? ", "yellow"), f"{event.tool}: ", verdict))
        elif isinstance(event, JudgeVerdict):
            label = ("[SAFE]", "green") if event.safe else ("[UNSAFE]", "bold red")
            self.console.print(Text.assemble(("  ⚖ judge ", "dim"), label, (f" {_preview(event.reason)}", "dim")))
        else:
            self.console.print(Text.assemble(("  ⚑ ", "yellow"), (f"{event.kind}: {_preview(event.detail)}", "yellow")))

    def _plan(self, event: PlanNodeEvent | PlanEnd) -> None:
        """A decomposition's node (indented by depth) or its end (``chrysalis decompose`` has its own live tree)."""
        if isinstance(event, PlanNodeEvent):
            indent = "  " * (event.depth + 1)
            self.console.print(Text(f"{indent}[{event.status}] {event.op} {_preview(event.task)}", "dim"))
            return
        mark = ("✔ ", "bold green") if event.success else ("✘ ", "bold red")
        self.console.print(Text.assemble(mark, event.output))

    def _show_child(self, event: Event, label: str) -> None:
        """A sub-agent's event, one indented line (its streamed text is left out: its answer comes at the end)."""
        line: str | None = None
        if isinstance(event, Start):
            line = f"started: {_preview(event.task)} (level {event.level}, mode {event.mode}, tools {event.profile})"
        elif isinstance(event, ToolCall):
            line = f"→ {event.tool}({_args_preview(event.args)})"
        elif isinstance(event, ToolResultEvent):
            line = f"  {'✓' if event.ok else '✗'} {_preview(event.result if event.ok else event.error)}"
        elif isinstance(event, RunResult):
            line = f"{'✔' if event.success else '✘'} {_preview(event.output)}"
        elif isinstance(event, ErrorEvent):
            line = f"✘ {event.reason}: {_preview(event.message)}"
        if line is not None:
            self.console.print(Text.assemble(("  ┆ ", "magenta"), (f"{label} ", "magenta"), (line, "dim")))

    def _check(self, event: Check) -> None:
        """The framework's own test run after the answer: its verdict, and the last line of its output."""
        where = " (sandbox)" if event.sandboxed else ""
        if event.passed:
            self.console.print(Text.assemble(("  ✓ check passed: ", "green"), (f"{event.command}{where}", "dim")))
            return
        code = "could not run" if event.exit_code is None else f"exit code {event.exit_code}"
        last = next((line for line in reversed(event.report.splitlines()) if line.strip()), "")
        self.console.print(Text.assemble(("  ✗ check failed: ", "red"), f"{event.command}{where}, {code}"))
        if last:
            self.console.print(Text(f"    {_preview(last)}", "red"))

    def _result(self, event: RunResult, streamed: str) -> None:
        """The answer (unless it was just streamed), whether the framework could verify it, and the totals."""
        answer = "done" if streamed.strip() == event.output.strip() else event.output
        mark = ("✔ ", "bold green") if event.success else ("✘ ", "bold red")
        self.console.print(Text.assemble(mark, answer))
        if event.problem:
            self.console.print(Text.assemble(("  ⚠ not verified: ", "bold yellow"), (event.problem, "yellow")))
        self.console.print(
            Text(
                f"  {event.steps} steps · {event.input_tokens + event.output_tokens} tokens · "
                f"${event.cost_usd:.4f} · {event.duration_ms / 1000:.1f} s",
                "dim",
            )
        )

    def _start(self, event: Start) -> None:
        """The run's settings, the model ``auto`` picked and why, and the tool profile and why."""
        c = self.console
        c.print(Text(f"▶ {event.model} · mode {event.mode} · level {event.level} · {event.workspace}", "dim"))
        if event.model_reason:
            c.print(Text(f"  {event.model_reason}", "dim"))
        if event.refine_model:
            c.print(Text(f"  if the check fails, {event.refine_model} refines the answer", "dim"))
        c.print(Text(f"  tools: {event.profile} ({event.profile_reason})", "dim"))
        if event.session_id:
            c.print(
                Text(
                    f"  session {event.session_id} (go on later with chrysalis run --resume {event.session_id})", "dim"
                )
            )
        plan = event.priority_plan
        if plan is not None:
            c.print(
                Text(
                    f"  priority: {event.priority} → {plan['keyword']} ({plan['reason']}): voting "
                    f"{plan['voting']}, {plan['check_retries']} check retries"
                    + (", reasoning" if plan["reasoning"] else ""),
                    "dim",
                )
            )


def _n(count: int, noun: str) -> str:
    """``1 sample``, ``3 samples``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
