"""Protected tests: a write to a test file is refused, unless the task asked for tests to be written.

``protect_tests`` keeps a "make the tests pass" run from weakening the tests (the commonest cheat of
a small model). A task that asks for tests ("add median() and tests for it", "rename calc_total
everywhere, tests included") means the agent to edit them; ``Policy.for_task`` reads it with
``asks_for_test_changes``.
"""

from __future__ import annotations

import re
from typing import Any

from chrysalis.tools.base import ToolSpec
from chrysalis.tools.pathkinds import is_test_path

__all__ = ["asks_for_test_changes", "protected_test_denial"]

_TEST_WORK = re.compile(
    r"\b(add|write|create|update|change|edit|rename|move|extend|adjust|cover)\w*\b"
    r"(?:[^.;!?]|[.](?=\S))*?"  # within one sentence (a dot in "calc.py" does not end it)
    r"\btests?\b(?! *pass)",
    re.IGNORECASE,
)
"""A verb of writing before "test(s)" in the same sentence, the tests not being what must pass."""


def asks_for_test_changes(task: str) -> bool:
    """Whether ``task`` asks for tests to be written or changed ("add tests", "rename ... and the tests").

    "Make the tests pass" and "fix the failing test" do not: there the tests are the judge, not the work.
    """
    return _TEST_WORK.search(task) is not None


def protected_test_denial(tool: ToolSpec, args: Any, protect_tests: bool) -> str | None:
    """Why ``tool`` may not write with ``args`` (it targets test files and they are protected), or None."""
    if not protect_tests or tool.effect != "write":
        return None
    tests = [p for p in tool.write_targets(args) if is_test_path(p)]
    if not tests:
        return None
    return (
        f"Test files are protected: {', '.join(tests)} may not be changed. Make the tests pass by fixing "
        "the code under test. (A user can allow test edits with protect_tests = false in .chrysalis/config.toml.)"
    )
