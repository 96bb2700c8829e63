"""The scaffold's rules the model cannot break: what a bare agent loop lacks.

Small models get stuck: they repeat the same call, write a tool call as text instead of making
it, or retry an edit that cannot apply (whether the work is done is ``verify.FinalCheck``'s call).
These guards watch the calls of one run and answer with feedback the model can act on, and
count its red flags: at the run's ``RunLimits.max_red_flags`` (``RunGuards.stuck``) the loop gives up.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from chrysalis.agent.limits import MAX_RED_FLAGS

__all__ = ["RunGuards", "edit_hint"]

REPEAT_LIMIT = 2
"""How many identical calls (same tool, same arguments, no file changed in between) are allowed."""
MAX_PRETEND_REJECTIONS = 2
_CALL_AS_TEXT = re.compile(r"\s*`*\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@dataclass
class RunGuards:
    """Per-run bookkeeping for red flags, repeats, and what the run has changed (for the final check)."""

    write_generation: int = 0
    """Counts successful writes; an identical call after a write is not a repeat."""
    activity: int = 0
    """Counts writes and commands: the final check reruns only when something happened since the last one."""
    red_flags: int = 0
    pretend_rejections: int = 0
    changed_files: bool = False
    """This run wrote at least one file, or ran a command on the real workspace (which may have)."""
    tried_to_write: bool = False
    """This run ran a write tool, whether or not the write applied: it set out to change something."""
    stopped_from_acting: bool = False
    """A write or command of this run was refused or declined: what it did not change, it was not let change."""
    called_tools: set[str] = field(default_factory=set[str])
    """Tools the model has called in this run."""
    max_red_flags: int = MAX_RED_FLAGS
    """After this many red flags the run is ``stuck``: the run's ``RunLimits.max_red_flags`` (the gate sets it)."""
    _calls: Counter[str] = field(default_factory=Counter[str])

    def repeated_call(self, tool: str, args: dict[str, Any]) -> str | None:
        """Count the call; return feedback when it repeats a call whose result cannot have changed."""
        self.called_tools.add(tool)
        key = self._call_key(tool, args)
        self._calls[key] += 1
        if self._calls[key] <= REPEAT_LIMIT:
            return None
        self.red_flags += 1
        return (
            f"Red flag: you already called {tool} with these same arguments {self._calls[key] - 1} times and "
            "nothing changed since, so the result is the same. Do something different: read another file, "
            "change the code, or give your final answer."
        )

    def forget_call(self, tool: str, args: dict[str, Any]) -> None:
        """Uncount the last such call: it had no result (a crash interrupted it), so making it again is no repeat."""
        self._calls[self._call_key(tool, args)] -= 1

    def _call_key(self, tool: str, args: dict[str, Any]) -> str:
        """One call with these arguments since the last write (a write may change every result)."""
        return f"{tool}|{json.dumps(args, sort_keys=True, default=str)}|{self.write_generation}"

    def record_result(self, effect: str, ok: bool, *, on_real_workspace: bool = False) -> None:
        """Track writes and commands, so repeats are recognised and the final check knows what changed."""
        if effect == "write":
            self.tried_to_write = True
            self.activity += 1
            if ok:
                self.write_generation += 1
                self.changed_files = True
        elif effect == "shell":
            self.activity += 1
            if on_real_workspace:
                self.changed_files = True

    @property
    def handed_off(self) -> bool:
        """The run started sub-agents: what they changed is theirs (each is checked at its own end), not this run's."""
        return "spawn_agent" in self.called_tools

    @property
    def set_out_to_change(self) -> bool:
        """The run changed files or tried to: its answer is held to the project's tests.

        A run that changed nothing is not: a failing test run is the expected answer to "why does
        this test fail?", but not to "make the failing test pass" after edits that did not apply.
        """
        return self.changed_files or self.tried_to_write

    def pretended_call_feedback(self, answer: str, tool_names: Collection[str]) -> str | None:
        """Feedback to refuse a final answer that only writes a tool call as text (at most twice).

        Small models sometimes answer ``list_dir(.): ['a.py', ...]``: the call never ran and the
        result is invented. Only an answer that *starts* with a call to a real tool not yet called
        in this run counts: an answer that mentions a tool in passing, or quotes a call that did
        run, is accepted.
        """
        if self.pretend_rejections >= MAX_PRETEND_REJECTIONS:
            return None
        match = _CALL_AS_TEXT.match(answer)
        if match is None or match.group(1) not in tool_names or match.group(1) in self.called_tools:
            return None
        self.pretend_rejections += 1
        self.red_flags += 1
        tool = match.group(1)
        return (
            f"Your answer wrote a call to {tool} as text, so it never ran and its result is made up. "
            f"Call the {tool} tool for real, read its result, then give your final answer."
        )

    @property
    def stuck(self) -> bool:
        """True when the model keeps tripping guards and the run should stop."""
        return self.red_flags >= self.max_red_flags


def edit_hint(tool: str, error: str) -> str:
    """Add what to do next when an edit did not apply (the usual trap for small models)."""
    if tool not in ("edit_file", "apply_patch") or error.startswith("Not written"):
        return error  # refused for what it would write (e.g. broken syntax), not for what it matched
    return error + " Read the file again with read_file and copy old_text exactly as it is now (without line numbers)."
