"""The operator families: a comparison, an arithmetic operator or a condition mutated in place.

TBar's FP11 Mutate Operators, FP8 Mutate Integer Division Operation and FP6 Mutate Conditional
Expression; PraPR's traditional mutators (PIT's) CONDITIONALS_BOUNDARY, NEGATE_CONDITIONALS, MATH,
INCREMENTS and INVERT_NEGS.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator

from chrysalis.repair.catalogue.site import Site, Span, end, segment, token_between

__all__ = [
    "and_or",
    "arithmetic_swap",
    "augmented_swap",
    "boundary",
    "direction",
    "drop_not",
    "drop_one",
    "drop_operand",
    "invert_negative",
    "negate_comparison",
    "negate_condition",
    "swap_operands",
]

BINARY: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_BINARY_SWAPS = {
    "+": ("-",),
    "-": ("+",),
    "*": ("//", "+"),
    "/": ("//", "*"),
    "//": ("/", "*", "%"),
    "%": ("//",),
    "**": ("*",),
    "<<": (">>",),
    ">>": ("<<",),
    "&": ("|",),
    "|": ("&",),
    "^": ("|",),
}
_COMPARE: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_NEGATION = {
    "<": ">=",
    "<=": ">",
    ">": "<=",
    ">=": "<",
    "==": "!=",
    "!=": "==",
    "in": "not in",
    "not in": "in",
    "is": "is not",
    "is not": "is",
}
_DIRECTION = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
_NOT_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


# comparison


def boundary(site: Site) -> Iterator[Span]:
    """``<`` ↔ ``<=``, ``>`` ↔ ``>=``: PraPR's (PIT's) CONDITIONALS_BOUNDARY; TBar FP11 Mutate Operators."""
    yield from _comparisons(site, _BOUNDARY)


def negate_comparison(site: Site) -> Iterator[Span]:
    """``==`` ↔ ``!=``, ``<`` ↔ ``>=``, ``in`` ↔ ``not in``, ``is`` ↔ ``is not``: PraPR's NEGATE_CONDITIONALS."""
    yield from _comparisons(site, _NEGATION)


def direction(site: Site) -> Iterator[Span]:
    """``<`` ↔ ``>``, ``<=`` ↔ ``>=``: TBar FP11 Mutate Operators (a relational operator replaced)."""
    yield from _comparisons(site, _DIRECTION)


def _comparisons(site: Site, table: dict[str, str]) -> Iterator[Span]:
    for node in site.nodes:
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            token = _COMPARE[type(op)]
            at = token_between(site.raw, end(left), right.col_offset, token)
            other = table.get(token)
            if at is not None and other is not None:
                yield Span(at, at + len(token), other, f"`{token}` → `{other}`")
            left = right


# arithmetic


def arithmetic_swap(site: Site) -> Iterator[Span]:
    """``+`` ↔ ``-``, ``/`` ↔ ``//``, ``%`` ↔ ``//``, ``*`` → ``//``: PraPR's MATH; TBar FP8 and FP11."""
    for node in site.nodes:
        if isinstance(node, ast.BinOp):
            token = BINARY[type(node.op)]
            at = token_between(site.raw, end(node.left), node.right.col_offset, token)
            if at is not None:
                for other in _BINARY_SWAPS.get(token, ()):
                    yield Span(at, at + len(token), other, f"`{token}` → `{other}`")


def augmented_swap(site: Site) -> Iterator[Span]:
    """``+=`` ↔ ``-=`` and the like: PraPR's INCREMENTS and MATH; TBar FP11 Mutate Operators."""
    for node in site.nodes:
        if isinstance(node, ast.AugAssign):
            token = BINARY[type(node.op)] + "="
            at = token_between(site.raw, end(node.target), node.value.col_offset, token)
            if at is not None:
                for other in _BINARY_SWAPS.get(token[:-1], ()):
                    yield Span(at, at + len(token), other + "=", f"`{token}` → `{other}=`")


def drop_one(site: Site) -> Iterator[Span]:
    """A ``+ 1`` or ``- 1`` dropped (``(n + 1)`` becomes ``n``): TBar FP11 Mutate Operators (an operand removed)."""
    raw = site.raw
    for node in site.nodes:
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub)):
            continue
        if not (isinstance(node.right, ast.Constant) and node.right.value == 1):
            continue
        start, stop = node.col_offset, end(node)
        grouped = raw[start - 1 : start] == b"(" and raw[stop : stop + 1] == b")"
        if (
            grouped
            and not raw[: start - 1].rstrip()[-1:].decode().isidentifier()
            and raw[start - 2 : start - 1] not in (b")", b"]")
        ):
            start, stop = start - 1, stop + 1  # ``(n + 1)`` becomes ``n``, not ``(n)``
        yield Span(start, stop, segment(raw, node.left), f"drop `{BINARY[type(node.op)]} 1`")


def swap_operands(site: Site) -> Iterator[Span]:
    """The operands of ``-``, ``/``, ``//``, ``%`` or ``**`` swapped: TBar FP11 Mutate Operators (operands swapped)."""
    raw = site.raw
    for node in site.nodes:
        if isinstance(node, ast.BinOp) and isinstance(node.op, _NOT_COMMUTATIVE):
            token = BINARY[type(node.op)]
            at = token_between(raw, end(node.left), node.right.col_offset, token)
            if at is not None:
                left = raw[node.col_offset : at].decode().strip()  # with any parentheses around it
                right = raw[at + len(token) : end(node)].decode().strip()
                yield Span(node.col_offset, end(node), f"{right} {token} {left}", "swap the operands")


def invert_negative(site: Site) -> Iterator[Span]:
    """``-x`` → ``x`` (a name, a call, an attribute): PraPR's INVERT_NEGS."""
    for node in site.nodes:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
                text = segment(site.raw, node.operand)
                yield Span(node.col_offset, end(node), text, f"`-{text}` → `{text}`")


# logic


def and_or(site: Site) -> Iterator[Span]:
    """``and`` ↔ ``or``: TBar FP11 Mutate Operators (a conditional operator replaced)."""
    for node in site.nodes:
        if isinstance(node, ast.BoolOp):
            token, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for before, after in itertools.pairwise(node.values):
                at = token_between(site.raw, end(before), after.col_offset, token)
                if at is not None:
                    yield Span(at, at + len(token), other, f"`{token}` → `{other}`")


def drop_operand(site: Site) -> Iterator[Span]:
    """One operand of an ``and``/``or`` dropped: TBar FP6 Mutate Conditional Expression (a sub-condition removed)."""
    raw = site.raw
    for node in site.nodes:
        if not isinstance(node, ast.BoolOp):
            continue
        token = "and" if isinstance(node.op, ast.And) else "or"
        cuts = [token_between(raw, end(a), b.col_offset, token) for a, b in itertools.pairwise(node.values)]
        if any(cut is None for cut in cuts):
            continue
        bounds = [node.col_offset, *(c for c in cuts if c is not None), end(node)]
        pieces = [
            raw[a + (len(token) if i else 0) : b].decode().strip()
            for i, (a, b) in enumerate(itertools.pairwise(bounds))
        ]
        for i, dropped in enumerate(pieces):
            kept = f" {token} ".join(p for j, p in enumerate(pieces) if j != i)
            yield Span(
                node.col_offset, end(node), kept, f"drop `{token} {dropped}`" if i else f"drop `{dropped} {token}`"
            )


def drop_not(site: Site) -> Iterator[Span]:
    """A ``not`` dropped: PraPR's NEGATE_CONDITIONALS; TBar FP6 Mutate Conditional Expression."""
    for node in site.nodes:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield Span(node.col_offset, end(node), segment(site.raw, node.operand), "drop `not`")


def negate_condition(site: Site) -> Iterator[Span]:
    """``if c:`` → ``if not c:`` (and ``while``, ``x if c else y``): PraPR's NEGATE_CONDITIONALS; TBar FP6."""
    tests = [s.test for s in site.statements if isinstance(s, ast.If | ast.While)]
    tests += [n.test for n in site.nodes if isinstance(n, ast.IfExp)]
    for test in tests:
        if test.lineno != site.number or test.end_lineno != site.number:
            continue
        if isinstance(test, ast.Compare | ast.Constant) or (
            isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        ):
            continue  # a comparison's negation is its operator's; ``not`` is dropped instead
        text = segment(site.raw, test)
        simple = isinstance(test, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
        new = f"not {text}" if simple else f"not ({text})"
        yield Span(test.col_offset, end(test), new, f"`{text}` → `{new}`")
