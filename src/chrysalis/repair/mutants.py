"""Template candidates: the one-token edits that most one-line bugs need, drawn without the model.

Most one-line bugs in real code are "simple stupid bugs" of a few kinds: a wrong operator, an
off-by-one bound, a wrong constant, a wrong variable, swapped arguments. Template-based repair
(PraPR, TBar) tries exactly those edits on the suspicious lines and lets the tests judge; each
costs one test run and no tokens, so repair validates them while the model samples. They are
candidates like any other: red flags, the vote and the smallest diff apply to them too, and a
template that passes only because the tests are weak is no better than a sampled one.

Edits work on the line's text (by the AST's column offsets), never by re-printing the AST, so the
rest of the line keeps its spelling and the diff is exactly the one token. The order is the order
to try them: line by line, most suspicious first. Variable swaps (many per line, rarely right, and
the kind most likely to pass weak tests with nonsense, such as comparing a colour with a graph) are
a separate, later group: repair tries them only after the model has had a round.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Mutant", "mutants"]

_BINARY: dict[type[ast.operator], str] = {
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
_COMPARE_SWAPS = {
    "<": ("<=", ">"),
    "<=": ("<", ">="),
    ">": (">=", "<"),
    ">=": (">", "<="),
    "==": ("!=",),
    "!=": ("==",),
    "in": ("not in",),
    "not in": ("in",),
    "is": ("is not",),
    "is not": ("is",),
}
_NOT_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


@dataclass(frozen=True)
class Mutant:
    """One template edit: the line it replaces, the new line, and what it does (``<`` → ``<=``)."""

    line: int
    text: str
    """The new line, without its newline."""
    edit: str


_Span = tuple[int, int, str, str]
"""An edit on one line: byte offsets ``[start, end)``, the replacement, and its description."""


def mutants(original: str, lines: Sequence[int], *, variables: bool = False) -> Iterator[Mutant]:
    """The template edits of ``lines`` (1-based, in the order to try), each yielding a program that parses.

    Without ``variables``: each line's operator, bound, constant and argument edits. With it: each
    line's variable swaps, the riskier kind (a wrong name that happens to pass weak tests reads as
    nonsense), which repair tries only once the model has had a round. A line that is not a whole
    statement or header on its own yields nothing.
    """
    try:
        tree = ast.parse(original)
    except SyntaxError:
        return
    texts = original.splitlines()
    names = _names_by_function(tree)
    in_fstrings = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    seen: set[tuple[int, str]] = set()
    for number in lines:
        if not 0 < number <= len(texts):
            continue
        raw = texts[number - 1].encode()
        nodes = [n for n in ast.walk(tree) if _on_line(n, number) and id(n) not in in_fstrings]
        spans = _variable_spans(nodes, raw, names.get(number, ())) if variables else _operator_spans(nodes, raw)
        for start, end, new, edit in spans:
            text = (raw[:start] + new.encode() + raw[end:]).decode()
            if (number, text) in seen or text == texts[number - 1] or not _parses(texts, number, text):
                continue
            seen.add((number, text))
            yield Mutant(number, text, edit)


def _on_line(node: ast.AST, number: int) -> bool:
    return isinstance(node, ast.expr | ast.AugAssign) and getattr(node, "lineno", 0) == number == node.end_lineno


def _parses(texts: list[str], number: int, text: str) -> bool:
    try:
        ast.parse("\n".join([*texts[: number - 1], text, *texts[number:]]))
    except SyntaxError:
        return False
    return True


def _operator_spans(nodes: list[ast.AST], raw: bytes) -> Iterator[_Span]:
    for node in nodes:
        edits = _EDITS.get(type(node))
        if edits is not None:
            yield from edits(node, raw)


def _not(node: ast.UnaryOp, raw: bytes) -> Iterator[_Span]:
    if isinstance(node.op, ast.Not):
        yield node.col_offset, _end(node), _segment(raw, node.operand), "drop `not`"


def _index(node: ast.Subscript, raw: bytes) -> Iterator[_Span]:
    if not isinstance(node.slice, ast.Slice | ast.Tuple):
        yield from _plus_minus_one(node.slice, raw)


def _slice(node: ast.Slice, raw: bytes) -> Iterator[_Span]:
    for bound in (node.lower, node.upper):
        if bound is not None:
            yield from _plus_minus_one(bound, raw)


def _tuple(node: ast.Tuple, raw: bytes) -> Iterator[_Span]:
    yield from _swaps(node.elts, raw, "swap two elements")


def _binary(node: ast.BinOp, raw: bytes) -> Iterator[_Span]:
    token = _BINARY[type(node.op)]
    at = _token_between(raw, _end(node.left), node.right.col_offset, token)
    if at is not None:
        for other in _BINARY_SWAPS.get(token, ()):
            yield at, at + len(token), other, f"`{token}` → `{other}`"
    if isinstance(node.op, ast.Add | ast.Sub) and isinstance(node.right, ast.Constant) and node.right.value == 1:
        start, end = node.col_offset, _end(node)
        grouped = raw[start - 1 : start] == b"(" and raw[end : end + 1] == b")"
        if (
            grouped
            and not raw[: start - 1].rstrip()[-1:].decode().isidentifier()
            and raw[start - 2 : start - 1] not in (b")", b"]")
        ):
            start, end = start - 1, end + 1  # ``(n + 1)`` becomes ``n``, not ``(n)``
        yield start, end, _segment(raw, node.left), f"drop `{token} 1`"
    if isinstance(node.op, _NOT_COMMUTATIVE) and at is not None:
        left = raw[node.col_offset : at].decode().strip()  # with any parentheses around it
        right = raw[at + len(token) : _end(node)].decode().strip()
        yield node.col_offset, _end(node), f"{right} {token} {left}", "swap the operands"


def _augmented(node: ast.AugAssign, raw: bytes) -> Iterator[_Span]:
    token = _BINARY[type(node.op)] + "="
    at = _token_between(raw, _end(node.target), node.value.col_offset, token)
    if at is not None:
        for other in _BINARY_SWAPS.get(token[:-1], ()):
            yield at, at + len(token), other + "=", f"`{token}` → `{other}=`"


def _comparisons(node: ast.Compare, raw: bytes) -> Iterator[_Span]:
    left = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        token = _COMPARE[type(op)]
        at = _token_between(raw, _end(left), right.col_offset, token)
        if at is not None:
            for other in _COMPARE_SWAPS[token]:
                yield at, at + len(token), other, f"`{token}` → `{other}`"
        left = right


def _boolean(node: ast.BoolOp, raw: bytes) -> Iterator[_Span]:
    token, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
    for before, after in itertools.pairwise(node.values):
        at = _token_between(raw, _end(before), after.col_offset, token)
        if at is not None:
            yield at, at + len(token), other, f"`{token}` → `{other}`"


def _constants(node: ast.Constant, raw: bytes) -> Iterator[_Span]:
    value = node.value
    if isinstance(value, bool):
        yield node.col_offset, _end(node), str(not value), f"`{value}` → `{not value}`"
    elif isinstance(value, int) and _segment(raw, node) == str(value):
        operand = raw[: node.col_offset].rstrip()[-1:] in (b"+", b"-")  # ``n + 1``: ``n - 1`` is the operator's edit
        for other in dict.fromkeys((value + 1, value - 1, 0, 1, -value)):
            if other != value and other >= (1 if operand else -1):
                yield node.col_offset, _end(node), str(other), f"`{value}` → `{other}`"


def _calls(node: ast.Call, raw: bytes) -> Iterator[_Span]:
    plain = [a for a in node.args if not isinstance(a, ast.Starred)]
    if isinstance(node.func, ast.Name) and node.func.id == "range":
        for arg in plain:
            yield from _plus_minus_one(arg, raw)
    followed_by_sign = raw[_end(node) :].lstrip()[:1] in (b"+", b"-")  # ``len(xs) - 1``: the operator's own edits
    if isinstance(node.func, ast.Name) and node.func.id == "len" and not followed_by_sign:
        yield from _plus_minus_one(node, raw)  # ``len(xs)`` for ``len(xs) - 1``: the classic last index
    if len(plain) == len(node.args):
        yield from _swaps(plain, raw, "swap two arguments")


def _swaps(items: Sequence[ast.expr], raw: bytes, edit: str) -> Iterator[_Span]:
    """Each two neighbours of ``items`` (arguments, a tuple's elements) swapped."""
    if any(isinstance(item, ast.Starred) for item in items):
        return
    for first, second in itertools.pairwise(items):
        a, b = _segment(raw, first), _segment(raw, second)
        between = raw[_end(first) : second.col_offset].decode()
        yield first.col_offset, _end(second), f"{b}{between}{a}", edit


def _plus_minus_one(node: ast.expr, raw: bytes) -> Iterator[_Span]:
    """``e`` → ``e + 1`` and ``e - 1``, where ``e`` is a bound or an index (an off-by-one's usual place)."""
    plus_minus_one = isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant) and node.right.value == 1
    if isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript | ast.BinOp) and not plus_minus_one:
        text = _segment(raw, node)
        for sign in ("+", "-"):
            yield node.col_offset, _end(node), f"{text} {sign} 1", f"`{text}` → `{text} {sign} 1`"


def _variable_spans(nodes: list[ast.AST], raw: bytes, names: Sequence[str]) -> Iterator[_Span]:
    """Each variable read on the line replaced by each other variable of its function."""
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            for other in names:
                if other != node.id:
                    yield node.col_offset, _end(node), other, f"`{node.id}` → `{other}`"


def _names_by_function(tree: ast.Module) -> dict[int, tuple[str, ...]]:
    """For each line inside a function, the function's parameters and assigned names (innermost function)."""
    found: dict[int, tuple[str, ...]] = {}
    for func in sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), key=lambda n: n.lineno
    ):
        params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
        stored = [n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        names = tuple(dict.fromkeys([*params, *stored]))
        for number in range(func.lineno, (func.end_lineno or func.lineno) + 1):
            found[number] = tuple(dict.fromkeys([*names, *found.get(number, ())]))  # inner first, then its outer
    return found


_EDITS: dict[type[ast.AST], Callable[[Any, bytes], Iterator[_Span]]] = {
    ast.BinOp: _binary,
    ast.AugAssign: _augmented,
    ast.Compare: _comparisons,
    ast.BoolOp: _boolean,
    ast.UnaryOp: _not,
    ast.Constant: _constants,
    ast.Call: _calls,
    ast.Tuple: _tuple,
    ast.Subscript: _index,
    ast.Slice: _slice,
}
"""The edits each kind of node on a line can take."""


def _token_between(raw: bytes, start: int, end: int, token: str) -> int | None:
    """The byte offset of ``token`` in ``raw[start:end]`` (the gap between two operands), if it is there alone."""
    gap = raw[start:end].decode(errors="replace")
    words = gap.replace("(", " ").replace(")", " ").split()
    if " ".join(words) != token:
        return None
    return start + len(raw[start:end].decode(errors="replace").split(token.split()[0], 1)[0].encode())


def _segment(raw: bytes, node: ast.AST) -> str:
    return raw[node.col_offset : _end(node)].decode()  # type: ignore[attr-defined]


def _end(node: ast.AST) -> int:
    end = getattr(node, "end_col_offset", None)
    assert end is not None
    return int(end)
