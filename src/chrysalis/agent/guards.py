"""The scaffold's rules the model cannot break: what a bare agent loop lacks.

Small models get stuck: they repeat the same call, finish without checking their work, or
retry an edit that cannot apply. These guards watch the calls of one run and answer with
feedback the model can act on, and ``RunGuards.stuck`` tells the loop when to give up.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunGuards", "edit_hint"]

REPEAT_LIMIT = 2
"""How many identical calls (same tool, same arguments, no file changed in between) are allowed."""
MAX_RED_FLAGS = 6
"""After this many red flags the run stops: the model is not making progress."""
MAX_FINISH_REJECTIONS = 2
_PASSED = re.compile(r"(?:\$ [^\n]*\n)?exit code 0\b")


@dataclass
class RunGuards:
    """Per-run bookkeeping for red flags and the check-before-finishing rule."""

    write_generation: int = 0
    """Counts successful writes; an identical call after a write is not a repeat."""
    red_flags: int = 0
    finish_rejections: int = 0
    changed_files: bool = False
    """This run wrote at least one file."""
    wrote_since_check: bool = False
    """Files changed and no command has run since: the model has not checked its work."""
    last_check_failed: bool = False
    """The last command exited non-zero (or timed out)."""
    _calls: Counter[str] = field(default_factory=Counter[str])

    def repeated_call(self, tool: str, args: dict[str, Any]) -> str | None:
        """Count the call; return feedback when it repeats a call whose result cannot have changed."""
        key = f"{tool}|{json.dumps(args, sort_keys=True, default=str)}|{self.write_generation}"
        self._calls[key] += 1
        if self._calls[key] <= REPEAT_LIMIT:
            return None
        self.red_flags += 1
        return (
            f"Red flag: you already called {tool} with these same arguments {self._calls[key] - 1} times and "
            "nothing changed since, so the result is the same. Do something different: read another file, "
            "change the code, or give your final answer."
        )

    def record_result(self, effect: str, ok: bool, result: object = None) -> None:
        """Track writes and checks so repeats and unverified finishes can be recognised."""
        if effect == "write" and ok:
            self.write_generation += 1
            self.wrote_since_check = True
            self.changed_files = True
        elif effect == "shell":
            self.wrote_since_check = False
            # shell and run_tests reports start with "exit code N" (run_tests puts "$ command" first).
            self.last_check_failed = not (ok and _PASSED.match(str(result)) is not None)

    def finish_feedback(self, can_run_commands: bool) -> str | None:
        """Feedback to refuse a final answer (at most twice) while changes are unchecked or the last check fails."""
        if not can_run_commands or self.finish_rejections >= MAX_FINISH_REJECTIONS:
            return None
        if self.changed_files and self.wrote_since_check:
            problem = "You changed files but have not checked the change since."
        elif self.last_check_failed:
            problem = "The last command you ran failed, so the task is not done."
        else:
            return None
        self.finish_rejections += 1
        self.red_flags += 1
        return f"{problem} Run the tests (or the program) with the shell tool, fix what fails, then answer."

    @property
    def stuck(self) -> bool:
        """True when the model keeps tripping guards and the run should stop."""
        return self.red_flags >= MAX_RED_FLAGS


def edit_hint(tool: str, error: str) -> str:
    """Add what to do next when an edit did not apply (the usual trap for small models)."""
    if tool not in ("edit_file", "apply_patch"):
        return error
    return error + " Read the file again with read_file and copy old_text exactly as it is now (without line numbers)."
