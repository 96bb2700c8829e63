"""The files an order to change code names, so that a run which did only part of it is not called done.

"Add transpose() to matrix.py, rewrite column_sums in ops.py, and add tests in tests/test_matrix.py":
on the embedded model a run often adds the function, sees the project's tests pass (they passed
before it started) and answers. The tests cannot tell; the task can. Each file the task's orders
name (``verify.change_orders``; not "The tests in test_matrix.py fail.") and the workspace has is
expected to change, unless the words just before it say it is only read ("tests for utils.py",
"written like helpers.py", "move it from cart.py": in doubt, a file is not required, so a run that
was right to leave it alone is never failed for it). A file that does
not exist yet is not required either: the name may be a slip for another file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["files_named", "unchanged"]

_PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:py|pyi|json|toml|ini|cfg|yaml|yml|txt|md|rst|js|ts))\b")
_ONLY_READ = re.compile(r"\b(for|like|see|from|of|than|as in|based on|same as|similar to)\s*\(?\s*$", re.IGNORECASE)
_LOOK_BACK = 16
"""How many characters before a name are read for the words that mark it as only read: the last ones only,
so "add tests for transpose in tests/test_matrix.py" still requires the test file."""


def files_named(task: str, workspace: Path) -> tuple[str, ...]:
    """The workspace's files ``task`` names as places to change (relative paths, in the task's order, once each)."""
    found: dict[str, None] = {}
    root = workspace.resolve()
    for match in _PATH.finditer(task):
        name = match.group(1)
        if _ONLY_READ.search(task[max(0, match.start() - _LOOK_BACK) : match.start()]):
            continue
        target = (root / name).resolve()
        if target.is_relative_to(root) and target.is_file():
            found[name] = None
    return tuple(found)


def unchanged(named: Iterable[str], changed: Iterable[Path], workspace: Path) -> list[str]:
    """The ``named`` files not among the ``changed`` paths (absolute, or relative to ``workspace``)."""
    root = workspace.resolve()
    done = {(root / path).resolve() for path in changed}
    return [name for name in named if (root / name).resolve() not in done]
