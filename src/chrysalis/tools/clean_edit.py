"""Refuse an edit that leaves dead code or a duplicated function: fix the line, do not shadow it.

The demo's classic bad fix inserts ``return a - b`` above the old ``return a + b``: the tests pass
and the old line stays behind, unreachable, where no reviewer would merge it. The same happens with
a whole function: a corrected copy is added next to the old one, and the later ``def`` silently
wins. Edits to ``.py`` files that parse are checked after the syntax check, against the problems
the file already had, so an existing dead line never blocks other work:

- statements after a ``return``, ``raise``, ``break`` or ``continue`` in the same block, or after an
  ``if``/``else`` whose every branch ends so (a small model's "new function" pasted over an old
  ``def`` line leaves the old body there, after the new one's last ``return``);
- a function defined twice in one scope, or two functions in one scope with the same body.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from chrysalis.tools.base import ToolError

__all__ = ["check_clean_edit", "duplicated_functions", "unreachable"]

_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def unreachable(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, what ends the block)`` for each statement after a ``return``/``raise``/``break``/``continue``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block[:-1]):
                if _ends(stmt):
                    keyword = type(stmt).__name__.lower()
                    why = f"the {keyword} on line {stmt.lineno}" + (", every branch of it" if keyword == "if" else "")
                    found.extend((later.lineno, why) for later in block[i + 1 :])
                    break
    return found


def _ends(stmt: ast.stmt) -> bool:
    """Whether nothing after ``stmt`` in its block can run: it returns, raises, breaks or continues on every path."""
    if isinstance(stmt, _ENDS_BLOCK):
        return True
    return isinstance(stmt, ast.If) and bool(stmt.orelse) and _ends(stmt.body[-1]) and _ends(stmt.orelse[-1])


def duplicated_functions(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, why)`` for each function that repeats another in its scope: by name, or by body."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        defs = [s for s in body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        names = Counter(d.name for d in defs if not d.decorator_list)  # @overload, @x.setter repeat names by design
        seen_bodies: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for d in defs:
            if names[d.name] > 1 and d is not next(x for x in defs if x.name == d.name):
                found.append((d.lineno, f"a second definition of {d.name}() shadows the first"))
            shape = ast.dump(ast.Module(body=d.body, type_ignores=[]))
            twin = seen_bodies.get(shape)
            if twin is not None and twin.name != d.name and len(d.body) > 1:
                found.append((d.lineno, f"{d.name}() has the same body as {twin.name}() on line {twin.lineno}"))
            seen_bodies.setdefault(shape, d)
    return found


def check_clean_edit(path: Path, shown: str, new_text: str, old_text: str | None) -> None:
    """Raise ``ToolError`` if ``new_text`` adds dead code or a duplicated function to the ``.py`` file ``path``."""
    if path.suffix != ".py":
        return
    try:
        new_tree = ast.parse(new_text)
        old_tree = ast.parse(old_text) if old_text is not None else None
    except SyntaxError:
        return  # the syntax check speaks for a file that does not parse
    problems = []
    for finder in (unreachable, duplicated_functions):
        before = len(finder(old_tree)) if old_tree is not None else 0
        after = finder(new_tree)
        if len(after) > before:
            problems += after
    if not problems:
        return
    lines = new_text.splitlines()
    said = "\n".join(f"  line {n}: {lines[n - 1].strip()!r} ({why})" for n, why in problems[:5])
    raise ToolError(
        f"Not written: this change would leave {shown} with code that never runs or a function defined "
        f"twice:\n{said}\n{shown} is unchanged. Replace the wrong line itself (put the whole old line in "
        "old_text and its fix in new_text) instead of adding a new line or function beside it."
    )
