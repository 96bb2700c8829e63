"""A model's reply as the smallest change: what it rewrote without changing the program is put back.

A model asked for a whole function re-wraps docstrings, drops them, and rewrites comments; a reviewer
reading the diff should see only the fix. ``minimise`` reverts every hunk of the reply that leaves
the program's shape (its AST, docstrings ignored) as it was, and puts back each docstring as the
file has it. ``hunks`` and ``shape`` are the two measures it uses, also used to split a candidate
into its single changes (``candidates.narrowings``).
"""

from __future__ import annotations

import ast
import difflib
import textwrap

__all__ = ["Definition", "definitions", "first_line", "hunks", "minimise", "shape"]


def minimise(original: str, new: str) -> str:
    """``new`` with every changed hunk that does not change the program put back as it was.

    A model asked for a whole function often re-wraps or rewrites a docstring or a comment; those
    hunks leave the code the same (equal ASTs, docstrings ignored: a bug fix has no business with
    them) and are reverted, so the diff shows only the fix. When ``new`` does not parse, a hunk
    whose reverting makes it parse is reverted too (a docstring the model broke).
    """
    old_lines, current = original.splitlines(keepends=True), _docstrings_restored(original, new)
    changed = True
    while changed:
        changed = False
        for i1, i2, j1, j2 in hunks(old_lines, current):
            trial = current[:j1] + old_lines[i1:i2] + current[j2:]
            now, then = shape("".join(current)), shape("".join(trial))
            if (now is not None and now == then) or (now is None and then is not None and trial != old_lines):
                current, changed = trial, True
                break
    return "".join(current)


def hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed spans ``(i1, i2, j1, j2)``; a replacement of as many lines as it removes, line by line."""
    spans: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            spans += [(i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1)]
        elif tag != "equal":
            spans.append((i1, i2, j1, j2))
    return spans


def _docstrings_restored(original: str, new: str) -> list[str]:
    """``new``'s lines with each rewritten or dropped docstring put back as ``original`` has it (by function name)."""
    lines = new.splitlines(keepends=True)
    try:
        old_defs, new_defs = definitions(ast.parse(original)), definitions(ast.parse(new))
    except SyntaxError:
        return lines
    old_lines = original.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str]]] = []
    for name, node in new_defs.items():
        old_span, new_span = _docstring_span(old_defs.get(name)), _docstring_span(node)
        if old_span is None or not node.body:
            continue
        restored = old_lines[old_span[0] - 1 : old_span[1]]
        if new_span is not None:
            edits.append((new_span[0] - 1, new_span[1], restored))
        else:  # dropped: insert it above the first statement, at that statement's indentation
            first = lines[node.body[0].lineno - 1]
            indent = first[: len(first) - len(first.lstrip())]
            text = textwrap.indent(textwrap.dedent("".join(restored)), indent)
            edits.append((node.body[0].lineno - 1, node.body[0].lineno - 1, text.splitlines(keepends=True)))
    for start, end, replacement in sorted(edits, key=lambda edit: -edit[0]):  # bottom up: spans stay valid
        lines[start:end] = replacement
    return lines


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def first_line(node: Definition) -> int:
    """Where a definition starts: its first decorator's line, else its ``def`` or ``class`` line."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def definitions(tree: ast.Module) -> dict[str, Definition]:
    """Each function and class, by qualified name."""
    found: dict[str, Definition] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[prefix + child.name] = child
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return found


def _docstring_span(node: Definition | None) -> tuple[int, int] | None:
    """The line span of ``node``'s docstring, if it has one."""
    first = node.body[0] if node is not None and node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.lineno, first.end_lineno or first.lineno
    return None


def shape(text: str) -> str | None:
    """The program's AST with docstrings emptied; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = ""
    return ast.dump(tree)
