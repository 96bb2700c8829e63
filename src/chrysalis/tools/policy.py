"""The one function that decides, before any tool call, whether it may run.

Security levels (seed 000), each including the ones below it:

    0  read-only      read files, list, search, git status/diff/log, system stats
    1  sandboxed read + the network (web_fetch, web_search) and shell commands in a read-only sandbox
    2  write          + write/edit/patch files and commit, each with confirmation (unless --yes)
    3  shell          + shell commands on the real workspace, with confirmation (unless --yes);
                        file writes need no confirmation here

Modes narrow what the level allows: ``ask`` never writes or runs commands, ``architect`` writes
only plan and doc files, ``code`` does everything the level allows, ``semantic`` reads and uses
memory. A denial says which level or mode would allow the call, so both the model and the user
know how to go on.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from chrysalis.config import LEVEL_NAMES
from chrysalis.tools.base import Effect, ToolSpec

__all__ = ["LEVEL_NAMES", "Decision", "decide", "is_doc_path", "is_test_path", "mode_allows"]


_MODE_EFFECTS: dict[str, frozenset[Effect]] = {
    "ask": frozenset({"read", "network"}),
    "architect": frozenset({"read", "network", "write"}),
    "code": frozenset({"read", "network", "memory", "write", "shell"}),
    "semantic": frozenset({"read", "memory"}),
}
_DOC_PATTERNS = ("*.md", "*.markdown", "*.rst", "*.txt", "*.adoc", "docs/*", "doc/*", "plans/*")
_TEST_PATTERNS = (
    "test_*.py", "*_test.py", "tests/*", "test/*", "conftest.py", "*.test.*", "*.spec.*", "pytest.ini", "tox.ini",
)  # fmt: skip


@dataclass(frozen=True)
class Decision:
    """The policy's answer for one call; ``reason`` is shown to the model and the user."""

    kind: Literal["allow", "ask", "deny"]
    reason: str = ""

    @property
    def allowed(self) -> bool:
        """True when the call may run now, without asking."""
        return self.kind == "allow"


def decide(
    tool: ToolSpec,
    args: Any,
    *,
    level: int,
    mode: str,
    auto_approve: bool = False,
    protect_tests: bool = False,
) -> Decision:
    """Decide allow / ask / deny for one call of ``tool`` with validated ``args``."""
    if tool.level > level:
        return Decision(
            "deny",
            f"{tool.name!r} needs security level {tool.level} ({LEVEL_NAMES[tool.level]}); "
            f"this run has level {level} ({LEVEL_NAMES[level]}). Rerun with --level {tool.level} to allow it.",
        )
    denial = _mode_denial(tool, args, mode) or _test_denial(tool, args, protect_tests)
    if denial:
        return Decision("deny", denial)
    needs_confirmation = (tool.effect == "write" and level == 2) or (tool.effect == "shell" and level == 3)
    if needs_confirmation and not auto_approve:
        return Decision("ask", f"{tool.name!r} changes the workspace ({tool.effect}); it needs your approval.")
    return Decision("allow")


def mode_allows(tool: ToolSpec, mode: str) -> bool:
    """Whether ``mode`` can ever allow ``tool`` (at some level): tools it cannot are not worth offering."""
    return tool.effect in _MODE_EFFECTS.get(mode, frozenset())


def _mode_denial(tool: ToolSpec, args: Any, mode: str) -> str | None:
    if not mode_allows(tool, mode):
        modes = [m for m, effects in _MODE_EFFECTS.items() if tool.effect in effects]
        return (
            f"{tool.name!r} ({tool.effect}) is not allowed in {mode!r} mode. "
            f"Switch with --mode {modes[-1]} (or /mode {modes[-1]}) to allow it."
        )
    if mode == "architect" and tool.effect == "write":
        not_docs = [p for p in tool.write_targets(args) if not is_doc_path(p)]
        if not_docs or not tool.write_targets(args):
            return (
                f"In 'architect' mode only plan and doc files (*.md, *.rst, *.txt, docs/) may be written, "
                f"not {', '.join(not_docs) or tool.name!r}. Switch with --mode code to change code."
            )
    return None


def _test_denial(tool: ToolSpec, args: Any, protect_tests: bool) -> str | None:
    if not protect_tests or tool.effect != "write":
        return None
    tests = [p for p in tool.write_targets(args) if is_test_path(p)]
    if not tests:
        return None
    return (
        f"Test files are protected: {', '.join(tests)} may not be changed. Make the tests pass by fixing "
        "the code under test. (A user can allow test edits with protect_tests = false in .chrysalis/config.toml.)"
    )


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    pure = PurePosixPath(path.replace("\\", "/"))
    parts = pure.parts
    candidates = [pure.name, str(pure)] + ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(c, pattern) for c in candidates for pattern in patterns)


def is_doc_path(path: str) -> bool:
    """Plan and documentation files: the only writes allowed in architect mode."""
    return _matches(path, _DOC_PATTERNS)


def is_test_path(path: str) -> bool:
    """Test files, which the agent may not edit to make tests pass."""
    return _matches(path, _TEST_PATTERNS)
