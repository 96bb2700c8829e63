"""The literal and bound families: a constant changed, a container emptied, a bound moved by one.

TBar's FP9 Mutate Literal Expression and FP7 Mutate Data Type; PraPR's INLINE_CONSTS; and for
bounds (``range``, indices, slices, ``len``), TBar's FP11 Mutate Operators inserting or removing ``± 1``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from chrysalis.repair.catalogue.site import Site, Span, end, plus_minus_one, segment

__all__ = ["booleans", "containers", "index_bounds", "kindred", "length", "numbers", "range_bounds", "slice_drop"]

KINDRED = 3
"""Other literals of a literal's type tried in its place, the nearest lines' first."""
_EMPTY = {ast.List: "[]", ast.Tuple: "()", ast.Set: "set()", ast.Dict: "{}"}


# literal


def numbers(site: Site) -> Iterator[Span]:
    """An integer moved by one, 0 ↔ 1, its sign flipped: TBar FP9 Mutate Literal Expression; PraPR's INLINE_CONSTS."""
    raw = site.raw
    negated = {id(n.operand): n for n in site.nodes if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
    for node in site.nodes:
        if not isinstance(node, ast.Constant) or type(node.value) is not int or segment(raw, node) != str(node.value):
            continue
        whole: ast.expr = negated.get(id(node), node)  # ``-1``: one literal, minus one
        value = node.value if whole is node else -node.value
        operand = raw[: whole.col_offset].rstrip()[-1:] in (b"+", b"-")  # ``n + 1``: ``n - 1`` is the operator's edit
        for other in _near_ints(value):
            if other != value and (not operand or other >= 1):
                yield Span(whole.col_offset, end(whole), str(other), f"`{segment(raw, whole)}` → `{other}`")


def booleans(site: Site) -> Iterator[Span]:
    """``True`` ↔ ``False``: TBar FP9 Mutate Literal Expression; PraPR's INLINE_CONSTS."""
    for node in site.nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            yield Span(node.col_offset, end(node), str(not node.value), f"`{node.value}` → `{not node.value}`")


def kindred(site: Site) -> Iterator[Span]:
    """A literal → another of its type spelled in the same function (a string, a number): TBar FP9."""
    statements = {id(s.value) for s in site.statements if isinstance(s, ast.Expr)}  # a docstring, a bare string
    for node in site.nodes:
        if not isinstance(node, ast.Constant) or id(node) in statements or isinstance(node.value, bool):
            continue
        if node.value is None or node.value is Ellipsis:
            continue
        near: tuple[object, ...] = _near_ints(node.value) if isinstance(node.value, int) else ()
        others = [
            (abs(line - site.number), text)
            for value, text, line in site.scope.literals
            if type(value) is type(node.value) and value != node.value and value not in near
        ]
        for _, text in sorted(others)[:KINDRED]:
            yield Span(node.col_offset, end(node), text, f"`{segment(site.raw, node)}` → `{text}`")


def containers(site: Site) -> Iterator[Span]:
    """``[x, y]`` → ``[]``, ``[]`` → ``[0]``, ``{}`` ↔ ``set()``: TBar FP9 (a literal) and FP7 Mutate Data Type."""
    raw = site.raw
    for node in site.nodes:
        if isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
            text = segment(raw, node)
            empty = not (node.keys if isinstance(node, ast.Dict) else node.elts)
            if not empty and (not isinstance(node, ast.Tuple) or text.startswith("(")):
                yield Span(node.col_offset, end(node), _EMPTY[type(node)], f"`{text}` → `{_EMPTY[type(node)]}`")
            elif empty and isinstance(node, ast.List):
                yield Span(node.col_offset, end(node), "[0]", "`[]` → `[0]`")
            elif empty and isinstance(node, ast.Dict):
                yield Span(node.col_offset, end(node), "set()", "`{}` → `set()`")
        elif isinstance(node, ast.Call) and segment(raw, node) == "set()":
            yield Span(node.col_offset, end(node), "{}", "`set()` → `{}`")


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _near_ints(value: int) -> tuple[int, ...]:
    """An integer's neighbours in the order tried: one more, one less, 0, 1, its sign flipped."""
    return tuple(dict.fromkeys((value + 1, value - 1, 0, 1, -value)))


# bounds


def range_bounds(site: Site) -> Iterator[Span]:
    """A ``range`` bound moved by one, ``range(n)`` → ``range(1, n)``: TBar FP11 (``± 1``) and FP9 on a loop bound."""
    for node in site.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            plain = [a for a in node.args if not isinstance(a, ast.Starred)]
            for arg in plain:
                yield from plus_minus_one(arg, site.raw)
            if len(plain) == len(node.args) == 1 and not node.keywords:
                start = node.args[0].col_offset
                yield Span(start, start, "1, ", f"`range({segment(site.raw, node.args[0])})` → `range(1, ...)`")


def index_bounds(site: Site) -> Iterator[Span]:
    """An index or a slice bound moved by one (``xs[i]`` → ``xs[i - 1]``): TBar FP11 Mutate Operators (``± 1``)."""
    for node in site.nodes:
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice | ast.Tuple):
            yield from plus_minus_one(node.slice, site.raw)
        elif isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None:
                    yield from plus_minus_one(bound, site.raw)


def slice_drop(site: Site) -> Iterator[Span]:
    """A slice bound dropped (``xs[1:]`` → ``xs[:]``, ``xs[:-1]`` → ``xs[:]``): TBar FP9 and FP13 (a bound removed)."""
    for node in site.nodes:
        if isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None:
                    text = segment(site.raw, bound)
                    yield Span(bound.col_offset, end(bound), "", f"drop the slice bound `{text}`")


def length(site: Site) -> Iterator[Span]:
    """``len(xs)`` → ``len(xs) ± 1`` (the classic last index): TBar FP11 Mutate Operators (``± 1`` inserted)."""
    for node in site.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            if site.raw[end(node) :].lstrip()[:1] not in (b"+", b"-"):  # ``len(xs) - 1``: the operator's own edits
                yield from plus_minus_one(node, site.raw)
