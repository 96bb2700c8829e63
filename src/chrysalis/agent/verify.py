"""The framework's own check of a change: after the model's answer, Chrysalis runs the project's tests.

Small models say "done" while their tests still fail, and some write "I ran the tests and they
passed" without running anything. So the verdict is ours: when a run has changed files (or set
out to) in ``code`` mode, and the project has a test command (``test_command`` in config, or one
detected from its files), Chrysalis runs that command itself when the model answers. A failure is
sent back to the model with the output (at most ``MAX_FAILED_CHECKS`` times, so it can fix what
fails); the run's outcome then follows the last check, never the model's words. A pytest check
gives each test a time limit, as ``run_tests`` does (``tools/per_test_limit.py``), so code stuck
in a loop comes back as a traceback through the loop rather than as a timeout with no output.

A task that asks for a fix ("fix the failing test", "make the tests pass") is held to the tests
even when the run changed nothing, at level 2 or more: answering "done" without an edit is the
commonest false success of a small model. A question ("why does this test fail?") is not.

A task with an order to change code (a sentence or clause that starts "Add a median() function…",
"Rename calc_total…", "…two bugs: … Fix both", "…the same loop; extract it into…") in ``code``
mode at level 2 or more is not done while no file has changed, whether its edits never applied or
it never made any, even when the tests pass: they passed before the run too. Nor is it done while
a file its orders name is unchanged ("…rewrite column_sums in ops.py, and add tests in
tests/test_matrix.py": ``named_files``), a small model's commonest partial answer; files named
only in the task's other sentences ("The tests in test_dates.py fail.") are not required. The
model is told so (as for failing tests), and if it still leaves it the run fails with that
problem. A write or command the policy refused or the user declined excuses both: the run was
not let change it. So does starting sub-agents: their edits are theirs, each checked at its end.
A clause that starts otherwise ("In stats.py, add…", "List what to change", "Do not change…")
is no order, rather than risk failing a run that was right to change nothing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from chrysalis.agent.durability import Durability, Verdict
from chrysalis.agent.guards import RunGuards
from chrysalis.agent.named_files import files_named, unchanged
from chrysalis.config import Settings
from chrysalis.errors import UsageError
from chrysalis.events import Check, Event
from chrysalis.redact import current as current_redactor
from chrysalis.tools.base import ToolContext, ToolError
from chrysalis.tools.policy import Policy
from chrysalis.tools.run_tests import detect_test_command, run_test_command
from chrysalis.tools.running import RunningCommands
from chrysalis.tools.sandbox import SandboxOptions

__all__ = ["MAX_FAILED_CHECKS", "FinalCheck", "Verdict", "asks_for_a_change", "asks_for_a_fix", "change_orders"]

MAX_FAILED_CHECKS = 2
"""Answers sent back to the model because the check failed; after that the answer stands, unverified."""
_MODEL_TAIL_CHARS = 2000
_ASKS_FOR_FIX = re.compile(r"\b(fix|repair|debug)\b|\bmake\b.*\b(pass|work)\b|\bpasses\b")
_QUESTION_WORDS = ("why", "what", "how", "where", "which", "explain", "describe", "is", "does", "can")
_CHANGE_ORDER = re.compile(
    r"(?:please\s+|now\s+|then\s+|and\s+|also\s+)*(add|implement|create|rename|refactor|move|extract|change|"
    r"update|remove|delete|replace|fix|convert|extend|introduce)\b(?!:)",  # not "write" (may want text); "Update:" no
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"(?<=[.;:!?])\s+|\n+")
"""Where a sentence or clause ends: the dot of "calc.py" is followed by no space, so it does not end one."""
_EVENT_TAIL_CHARS = 800


_UNCHECKED = Verdict(verified=None)
_NOTHING_CHANGED = Verdict(
    verified=False, problem="the task asks for a change to the code, and no file was changed", report=""
)


def change_orders(task: str) -> list[str]:
    """The sentences and clauses of ``task`` that order a change to code ("Add …", "…; extract it …", "Fix both.").

    Each starts with an order verb and is no question. A task is cut at the end of a sentence and
    at ';' and ':', because users put the situation first and the order after it: "render_plain and
    render_markdown both compute the widths with the same loop; extract it into column_widths".
    """
    clauses = (clause.strip() for clause in _CLAUSE_BREAK.split(task))
    return [clause for clause in clauses if _CHANGE_ORDER.match(clause) and not clause.endswith("?")]


def asks_for_a_change(task: str) -> bool:
    """Whether ``task`` orders a change to code in one of its sentences or clauses (``change_orders``)."""
    return bool(change_orders(task))


def asks_for_a_fix(task: str) -> bool:
    """Whether ``task`` asks for a change that makes something pass or work, rather than a question about it."""
    words = task.strip().lower()
    if not words or words.endswith("?") or words.split()[0] in _QUESTION_WORDS:
        return False
    return _ASKS_FOR_FIX.search(words) is not None


class FinalCheck:
    """Runs the project's tests when the model answers, and remembers the verdict for the run's result."""

    def __init__(
        self,
        settings: Settings,
        run_id: str,
        emit: Callable[[Event], None],
        command_snapshot: Callable[[str], AbstractContextManager[None]] | None = None,
        max_failures: int = MAX_FAILED_CHECKS,
        task: str = "",
        durability: Durability | None = None,
        policy: Policy | None = None,
        changed_paths: Callable[[], tuple[Path, ...]] | None = None,
    ) -> None:
        """``policy``: the run's (``GatedTools.policy``); None builds it from ``settings``.

        ``changed_paths``: the files the run has changed (``GatedTools.changed_paths``: from its
        checkpoints, so a resumed run still knows them); None: files the task names are not checked.
        """
        self._settings = settings
        self._policy = policy or Policy.from_settings(settings)
        """Whether the check may write the workspace (``check_writable``), and the level and mode it runs at."""
        self._fix_task = self._policy.level >= 2 and asks_for_a_fix(task)
        """Held to the tests even if nothing changed (see the module's docstring)."""
        orders = change_orders(task)
        self._change_task = self._policy.level >= 2 and self._policy.mode == "code" and bool(orders)
        """Not done if nothing changed (see the module's docstring)."""
        ordered = " ".join(orders)
        self._named = files_named(ordered, settings.workspace) if self._change_task and changed_paths else ()
        """Files the orders name, each expected to change (``named_files``); not those named only elsewhere."""
        self._changed_paths = changed_paths
        self._half_done: Verdict | None = None
        """The last verdict that a named file is unchanged (its feedback differs from failing tests')."""
        self._max_failures = max_failures
        """Failed checks sent back to the model (the priority's ``check_retries``)."""
        self._run_id = run_id
        self._emit = emit
        self._command_snapshot = command_snapshot
        """Snapshots the workspace around a check that may write it (level 3 with --yes), so undo covers it."""
        self._durability = durability
        """Records the verdict, so a resumed run sees what the check said then, not what it says now."""
        self.command = settings.test_command or detect_test_command(settings.workspace)
        self.verdict = _UNCHECKED
        self.failures = 0
        self._commands = RunningCommands()
        """The check's test command while it runs: killed when the run is cancelled."""
        self._checked_at: int | None = None
        """``RunGuards.activity`` when the last check ran: nothing happened since means the same verdict."""

    def needed(self, guards: RunGuards) -> bool:
        """A check is due when a code-mode run changed files (or tried to, or was asked to fix) and tests exist."""
        p = self._policy
        due = guards.set_out_to_change or self._fix_task
        return p.mode == "code" and p.level >= 1 and self.command is not None and due

    async def run(self, guards: RunGuards) -> Verdict:
        """Check the change now (or reuse the last verdict if nothing happened since); emits a ``check`` event."""
        if not self.needed(guards):
            self.verdict = self._as_ordered(guards, _UNCHECKED)
            return self.verdict
        if self._checked_at == guards.activity:
            return self.verdict
        self._checked_at = guards.activity
        assert self.command is not None  # needed() said so
        if self._durability is None:
            try:
                self.verdict, event = await asyncio.to_thread(self._run_command, self.command)
            except asyncio.CancelledError:  # the run is over: stop its tests now, not at their timeout
                self._commands.stop_all()
                raise
        else:
            self.verdict, event = await self._durability.check(self._run_command, self.command)
        self._emit(event)  # from the loop's thread, like every other event
        if self.verdict.verified:  # for an order, tests that passed before the run too prove nothing
            self.verdict = self._as_ordered(guards, self.verdict)
        return self.verdict

    def _as_ordered(self, guards: RunGuards, otherwise: Verdict) -> Verdict:
        """An order's verdict when nothing failed: nothing changed, or a named file unchanged, else ``otherwise``."""
        return _NOTHING_CHANGED if self._unchanged(guards) else self._named_left(guards) or otherwise

    def _named_left(self, guards: RunGuards) -> Verdict | None:
        """A verdict that the order is half done when a file it names is unchanged; None when none is.

        Not when a write or command was refused or declined (the run was not let finish), nor when
        the run started sub-agents (their changes are recorded under their own runs).
        """
        if not self._named or self._changed_paths is None or guards.stopped_from_acting or guards.handed_off:
            return None
        left = unchanged(self._named, self._changed_paths(), self._settings.workspace)
        if not left:
            return None
        names = " and ".join(", ".join(left).rsplit(", ", 1))
        problem = f"the task names {names}, and this run did not change {_it(left)}"
        self._half_done = Verdict(verified=False, problem=problem)
        return self._half_done

    def _unchanged(self, guards: RunGuards) -> bool:
        """An order to change code that changed no file, not for want of permission, nor by handing it off."""
        excused = guards.stopped_from_acting or guards.handed_off
        return self._change_task and not guards.changed_files and not excused

    @property
    def tests_failed(self) -> bool:
        """The last check ran the tests and they failed (not: nothing was changed, or nothing could run)."""
        judged_otherwise = self.verdict is _NOTHING_CHANGED or self.verdict is self._half_done
        return self.verdict.verified is False and self.verdict.ran and not judged_otherwise

    def feedback(self) -> str | None:
        """What to tell the model when its answer stands on a failing check (``None``: accept the answer)."""
        if self.verdict.verified is not False or not self.verdict.ran or self.failures >= self._max_failures:
            return None
        self.failures += 1
        if self.verdict is _NOTHING_CHANGED:
            return (
                "Not done: the task asks for changes to the code, and no file has been changed yet. Make the "
                "changes with the file tools (edit_file or write_file), then answer."
            )
        if self.verdict is self._half_done:
            return f"Not done: {self.verdict.problem}. Do that part of the task too, then answer."
        tail = current_redactor().text(self.verdict.report[-_MODEL_TAIL_CHARS:])  # test output, like any tool output
        return (
            f"Not done: Chrysalis ran the tests after your answer and they fail ({self.verdict.problem}).\n{tail}\n"
            "Fix the code (not the tests), then answer again."
        )

    def _run_command(self, command: str) -> tuple[Verdict, Check]:
        """Run the tests (in a worker thread): the verdict, and the ``check`` event that reports it."""
        s = self._settings
        sandboxed = not self._policy.check_writable
        context = ToolContext(
            workspace=s.workspace,
            writable=not sandboxed,
            test_command=command,
            sandbox_options=SandboxOptions.from_settings(s),
            commands=self._commands,
        )
        snapshots = None if sandboxed else self._command_snapshot
        try:
            with snapshots("final_check") if snapshots is not None else nullcontext():
                code, report = run_test_command(command, context)
        except (ToolError, UsageError) as exc:  # no sandbox here, or no snapshot (no git, workspace too big)
            verdict = Verdict(
                verified=False, problem=f"the tests ({command}) could not run: {exc}", report=str(exc), ran=False
            )
            return verdict, self._event(command, None, sandboxed, str(exc))
        event = self._event(command, code, sandboxed, report[-_EVENT_TAIL_CHARS:])
        if code == 0:
            return Verdict(verified=True, report=report), event
        what = "timed out" if code is None else f"exit code {code}"
        problem = f"the tests failed when Chrysalis ran `{command}` ({what})"
        return Verdict(verified=False, problem=problem, report=report), event

    def _event(self, command: str, code: int | None, sandboxed: bool, report: str) -> Check:
        return Check(
            run_id=self._run_id, command=command, passed=code == 0, exit_code=code, sandboxed=sandboxed, report=report
        )


def _it(names: list[str]) -> str:
    return "it" if len(names) == 1 else "them"
