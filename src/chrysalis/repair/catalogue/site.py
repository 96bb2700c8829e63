"""What a template operator sees of one line (``Site``), what it returns (``Span``), and the text helpers.

An operator reads the line's AST nodes and answers with spans: byte offsets on the line's text and
their replacement, so the rest of the line keeps its spelling. The facts an operator needs beyond
the line (the names of its function, the literals it spells, the attributes used on an object of
the same name) are gathered once per file by ``Facts``.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = [
    "Facts",
    "Family",
    "Operator",
    "Scope",
    "Site",
    "Span",
    "end",
    "is_predicate",
    "plus_minus_one",
    "segment",
    "swaps",
]

Function = ast.FunctionDef | ast.AsyncFunctionDef
_RECEIVERS = ("self", "cls")
_PREDICATES = ("any", "all", "callable", "endswith", "hasattr", "isinstance", "issubclass", "startswith")


class Span(NamedTuple):
    """One edit: bytes ``[start, end)`` of a line replaced by ``new``, with what it does (``<`` → ``<=``)."""

    start: int
    end: int
    new: str
    edit: str
    line: int = 0
    """The line edited: 0 for the site's own line (another one only for an insertion after a loop's body)."""


@dataclass(frozen=True)
class Scope:
    """The facts of the innermost function around a line (all empty outside a function)."""

    function: Function | None = None
    names: tuple[str, ...] = ()
    """Its parameters and assigned names, then its outer functions' (variable misuse draws from these)."""
    params: tuple[str, ...] = ()
    """Its own parameters, without ``self`` and ``cls``."""
    literals: tuple[tuple[object, str, int], ...] = ()
    """Its literals (no docstring, no bool or None): value, spelling, line."""
    recursive: bool = False
    returns_bool: bool = False
    """Some ``return`` of it gives ``True``, ``False``, a comparison or a ``not``."""
    indent: str = "    "
    """One level of its indentation."""


@dataclass(frozen=True)
class Site:
    """One line to edit, with the AST nodes on it and its function's facts."""

    number: int
    raw: bytes
    texts: Sequence[str]
    nodes: tuple[ast.AST, ...]
    """Expressions (and augmented assignments) wholly on the line, outside f-strings, outermost first."""
    statements: tuple[ast.stmt, ...]
    """The statements that start on the line, outermost first."""
    scope: Scope
    members: Mapping[tuple[str, bool], tuple[str, ...]] = field(default_factory=dict)
    """(receiver, called) -> the attributes used on a receiver so spelled: methods if called, else fields.
    ``self``'s come from the line's class, any other receiver's from the module."""
    arities: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Callee (``f`` or ``self.m``) -> the fewest and most positional arguments it takes (module functions)."""

    def line_text(self, number: int) -> bytes:
        """Line ``number``'s text (the site's own, or another for an insertion)."""
        return self.raw if number in (0, self.number) else self.texts[number - 1].encode()


Operator = Callable[[Site], Iterator[Span]]


@dataclass(frozen=True)
class Family:
    """A fix-pattern family of the catalogue: its name, where it comes from, its operators in order."""

    name: str
    source: str
    operators: tuple[Operator, ...]
    later: tuple[Operator, ...] = ()
    """Its operators that choose a name in scope: tried only from repair's second round."""


class Facts:
    """The facts of one parsed file, gathered once, that turn a line number into a ``Site``."""

    def __init__(self, tree: ast.Module, texts: Sequence[str]) -> None:
        self.texts = texts
        in_fstrings = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
        self._nodes: dict[int, list[ast.AST]] = {}
        self._statements: dict[int, list[ast.stmt]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt):
                self._statements.setdefault(node.lineno, []).append(node)
            if isinstance(node, ast.expr | ast.AugAssign) and id(node) not in in_fstrings:
                if node.lineno == node.end_lineno:
                    self._nodes.setdefault(node.lineno, []).append(node)
        self._scopes = _scopes(tree, texts, in_fstrings)
        self._members, self._arities = _members(tree)
        self._classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]

    def site(self, number: int) -> Site:
        """Line ``number`` (1-based, within the file) as operators see it."""
        inside = [c.lineno for c in self._classes if c.lineno <= number <= (c.end_lineno or c.lineno)]
        owners = (max(inside, default=-2), -1)  # its innermost class (for ``self``), and the module
        return Site(
            number,
            self.texts[number - 1].encode(),
            self.texts,
            tuple(self._nodes.get(number, ())),
            tuple(self._statements.get(number, ())),
            self._scopes.get(number, Scope()),
            {(r, c): names for (owner, r, c), names in self._members.items() if owner in owners},
            {callee: arity for (owner, callee), arity in self._arities.items() if owner in owners},
        )


def _scopes(tree: ast.Module, texts: Sequence[str], in_fstrings: set[int]) -> dict[int, Scope]:
    """For each line inside a function, its innermost function's scope (outer functions' names after its own)."""
    found: dict[int, Scope] = {}
    functions = sorted((n for n in ast.walk(tree) if isinstance(n, Function)), key=lambda n: n.lineno)
    for func in functions:
        params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
        stored = [n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        outer = found.get(func.lineno, Scope()).names  # the enclosing function's (sorted: it came first)
        scope = Scope(
            func,
            tuple(dict.fromkeys([*params, *stored, *outer])),
            tuple(p for p in params if p not in _RECEIVERS),
            _literals(func, texts, in_fstrings),
            _calls_itself(func),
            _returns_bool(func),
            _indent(func, texts),
        )
        for number in range(func.lineno, (func.end_lineno or func.lineno) + 1):
            found[number] = scope
    return found


def _literals(func: Function, texts: Sequence[str], in_fstrings: set[int]) -> tuple[tuple[object, str, int], ...]:
    body = func.body
    docstring = body[0].value if body and isinstance(body[0], ast.Expr) else None
    found: dict[tuple[type, object], tuple[object, str, int]] = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.Constant) or node is docstring or id(node) in in_fstrings:
            continue
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis or node.lineno != node.end_lineno:
            continue
        text = texts[node.lineno - 1].encode()[node.col_offset : end(node)].decode()
        if len(text) <= 40 and "\n" not in text:
            found.setdefault((type(value), value), (value, text, node.lineno))
    return tuple(found.values())


def _calls_itself(func: Function) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Name) and callee.id == func.name:
                return True
            if isinstance(callee, ast.Attribute) and callee.attr == func.name and _is_receiver(callee.value):
                return True
    return False


def _returns_bool(func: Function) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Compare) or (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
                return True
            if (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)) or is_predicate(value):
                return True
    return False


def is_predicate(value: ast.expr) -> bool:
    """A call that answers yes or no: ``any``, ``isinstance``, ``startswith``, ``is...`` and the like."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name in _PREDICATES or name.startswith("is")


def _indent(func: Function, texts: Sequence[str]) -> str:
    first = func.body[0]
    if first.lineno == func.lineno:
        return "    "
    def_line, body_line = texts[func.lineno - 1], texts[first.lineno - 1]
    outer = def_line[: len(def_line) - len(def_line.lstrip())]
    inner = body_line[: len(body_line) - len(body_line.lstrip())]
    return inner[len(outer) :] if inner.startswith(outer) and len(inner) > len(outer) else "    "


def _members(
    tree: ast.Module,
) -> tuple[dict[tuple[int, str, bool], tuple[str, ...]], dict[tuple[int, str], tuple[int, int]]]:
    """The attributes used per (class line or -1 for the module, receiver, called), and the callees' arities."""
    members: dict[tuple[int, str, bool], dict[str, None]] = {}
    arities: dict[tuple[int, str], tuple[int, int]] = {}
    for func in tree.body:
        if isinstance(func, Function):
            arities[-1, func.name] = _arity(func, method=False)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, Function) and not item.name.startswith("__"):
                    members.setdefault((node.lineno, "self", True), {})[item.name] = None
                    arities[node.lineno, f"self.{item.name}"] = _arity(item, method=True)
            _attributes(node, node.lineno, members, own=True)
    _attributes(tree, -1, members, own=False)
    return {key: tuple(names) for key, names in members.items()}, arities


def _attributes(root: ast.AST, owner: int, found: dict[tuple[int, str, bool], dict[str, None]], *, own: bool) -> None:
    """Record the attributes used under ``root``: on ``self`` only if ``own`` (a class), else on anything else."""
    called = {id(n.func) for n in ast.walk(root) if isinstance(n, ast.Call)}
    for node in ast.walk(root):
        if not isinstance(node, ast.Attribute) or node.attr.startswith("__"):
            continue
        receiver = receiver_of(node)
        if receiver is None or (receiver in _RECEIVERS) != own:
            continue
        found.setdefault((owner, receiver, id(node) in called), {})[node.attr] = None


def _arity(func: Function, *, method: bool) -> tuple[int, int]:
    positional = [*func.args.posonlyargs, *func.args.args][1 if method else 0 :]
    most = 99 if func.args.vararg else len(positional)
    return len(positional) - len(func.args.defaults), most


def receiver_of(node: ast.Attribute) -> str | None:
    """``node``'s receiver as spelled (``self``, ``cart.items``), if it is a name or a chain of attributes."""
    value = node.value
    parts: list[str] = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name):
        return None
    return ".".join([value.id, *reversed(parts)])


def _is_receiver(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in _RECEIVERS


def swaps(items: Sequence[ast.expr], raw: bytes, edit: str) -> Iterator[Span]:
    """Each two neighbours of ``items`` (arguments, a tuple's elements) swapped."""
    if any(isinstance(item, ast.Starred) for item in items):
        return
    for first, second in itertools.pairwise(items):
        a, b = segment(raw, first), segment(raw, second)
        between = raw[end(first) : second.col_offset].decode()
        yield Span(first.col_offset, end(second), f"{b}{between}{a}", edit)


def plus_minus_one(node: ast.expr, raw: bytes) -> Iterator[Span]:
    """``e`` → ``e + 1`` and ``e - 1``, where ``e`` is a bound or an index (an off-by-one's usual place)."""
    plus_minus = isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant) and node.right.value == 1
    if isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript | ast.BinOp) and not plus_minus:
        text = segment(raw, node)
        for sign in ("+", "-"):
            yield Span(node.col_offset, end(node), f"{text} {sign} 1", f"`{text}` → `{text} {sign} 1`")


def token_between(raw: bytes, start: int, stop: int, token: str) -> int | None:
    """The byte offset of ``token`` in ``raw[start:stop]`` (the gap between two operands), if it is there alone."""
    gap = raw[start:stop].decode(errors="replace")
    words = gap.replace("(", " ").replace(")", " ").split()
    if " ".join(words) != token:
        return None
    return start + len(gap.split(token.split()[0], 1)[0].encode())


def segment(raw: bytes, node: ast.AST) -> str:
    """``node``'s text on the line."""
    return raw[node.col_offset : end(node)].decode()  # type: ignore[attr-defined]


def end(node: ast.AST) -> int:
    """``node``'s end column (a byte offset)."""
    stop = getattr(node, "end_col_offset", None)
    assert stop is not None
    return int(stop)
