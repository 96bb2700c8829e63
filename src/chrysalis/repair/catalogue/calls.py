"""The call families: a sibling builtin or method, another attribute of the same object, the arguments.

TBar's FP10 Mutate Method Invocation Expression and FP13 Mutate Variable (a field); PraPR's
METHOD_NAME_MUTATOR, FIELD_NAME_MUTATOR and ARGUMENTS_LIST_MUTATOR.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from chrysalis.repair.catalogue.site import Site, Span, end, receiver_of, segment, swaps

__all__ = [
    "add_literal",
    "fields",
    "methods",
    "open_slots",
    "pop_insert",
    "remove_argument",
    "sibling_builtins",
    "sibling_methods",
    "swap_arguments",
]

MEMBERS = 4
"""Other attributes of the same receiver tried in an attribute's place, in the order the file first uses them."""
_BUILTINS = {
    "min": ("max",),
    "max": ("min",),
    "any": ("all",),
    "all": ("any",),
    "sorted": ("reversed",),
    "reversed": ("sorted",),
    "len": ("sum",),
    "sum": ("len",),
    "int": ("round",),
    "round": ("int",),
}
"""Builtins a call may have confused with a sibling of the same shape (one-argument ones only, bar min/max)."""
_METHODS = {
    "append": ("extend",),
    "extend": ("append",),
    "keys": ("values", "items"),
    "values": ("items", "keys"),
    "items": ("values", "keys"),
    "floor": ("ceil",),
    "ceil": ("floor",),
    "startswith": ("endswith",),
    "endswith": ("startswith",),
    "lstrip": ("rstrip", "strip"),
    "rstrip": ("lstrip", "strip"),
    "strip": ("lstrip", "rstrip"),
    "lower": ("upper",),
    "upper": ("lower",),
    "find": ("rfind",),
    "rfind": ("find",),
}
"""Methods of the builtin types (and ``math``'s functions) confused with a sibling that takes the same arguments."""
_ANY_ARITY = ("min", "max")


# builtin


def sibling_builtins(site: Site) -> Iterator[Span]:
    """``min`` ↔ ``max``, ``any`` ↔ ``all``, ``len`` ↔ ``sum``, ``int`` ↔ ``round``, ...: TBar FP10 (the name)."""
    for node in site.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BUILTINS:
            name = node.func.id
            if name not in _ANY_ARITY and (len(node.args) != 1 or node.keywords):
                continue
            for other in _BUILTINS[name]:
                yield Span(node.func.col_offset, end(node.func), other, f"`{name}` → `{other}`")


def sibling_methods(site: Site) -> Iterator[Span]:
    """``append`` ↔ ``extend``, ``keys`` ↔ ``values``, ``floor`` ↔ ``ceil``, ...: PraPR's METHOD_NAME_MUTATOR."""
    for node in site.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS:
            name = node.func.attr
            for other in _METHODS[name]:
                yield _rename(node.func, other)


def pop_insert(site: Site) -> Iterator[Span]:
    """``pop(0)`` ↔ ``pop()``, ``insert(0, x)`` ↔ ``append(x)``: TBar FP10 (a method and its arguments changed)."""
    raw = site.raw
    for node in site.nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or node.keywords:
            continue
        name, args, callee = node.func.attr, node.args, segment(raw, node.func.value)
        if name == "pop" and not args:
            yield Span(end(node) - 1, end(node) - 1, "0", "`pop()` → `pop(0)`")
        elif name == "pop" and len(args) == 1 and segment(raw, args[0]) == "0":
            yield Span(args[0].col_offset, end(args[0]), "", f"`pop({segment(raw, args[0])})` → `pop()`")
        elif name == "append" and len(args) == 1:
            new = f"{callee}.insert(0, {segment(raw, args[0])})"
            yield Span(node.col_offset, end(node), new, "`append(x)` → `insert(0, x)`")
        elif name == "insert" and len(args) == 2:
            new = f"{callee}.append({segment(raw, args[1])})"
            yield Span(node.col_offset, end(node), new, f"`insert({segment(raw, args[0])}, x)` → `append(x)`")


# attribute


def fields(site: Site) -> Iterator[Span]:
    """``obj.a`` → ``obj.b``, used on an object so named (``self.prev`` → ``self.next``): PraPR's FIELD_NAME_MUTATOR."""
    yield from _members(site, called=False)


def methods(site: Site) -> Iterator[Span]:
    """``obj.m()`` → ``obj.n()``, a method called on an object so named, or the class's: PraPR's METHOD_NAME_MUTATOR."""
    yield from _members(site, called=True)


def _members(site: Site, *, called: bool) -> Iterator[Span]:
    calls = {id(n.func): n for n in site.nodes if isinstance(n, ast.Call)}
    for node in site.nodes:
        if not isinstance(node, ast.Attribute) or (id(node) in calls) != called:
            continue
        receiver = receiver_of(node)
        if receiver is None:
            continue
        others = [m for m in site.members.get((receiver, called), ()) if m != node.attr]
        if called:
            count = len(calls[id(node)].args)
            others = [m for m in others if _takes(site.arities.get(f"{receiver}.{m}"), count)]
        for other in others[:MEMBERS]:
            yield _rename(node, other)


def _takes(arity: tuple[int, int] | None, count: int) -> bool:
    return arity is None or arity[0] <= count <= arity[1]


def _rename(node: ast.Attribute, other: str) -> Span:
    stop = end(node)
    return Span(stop - len(node.attr.encode()), stop, other, f"`.{node.attr}` → `.{other}`")


# arguments


def swap_arguments(site: Site) -> Iterator[Span]:
    """Two neighbouring arguments (or a tuple's elements) swapped: PraPR's ARGUMENTS_LIST_MUTATOR; TBar FP10."""
    for node in site.nodes:
        if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
            yield from swaps(node.args, site.raw, "swap two arguments")
        elif isinstance(node, ast.Tuple):
            yield from swaps(node.elts, site.raw, "swap two elements")


def remove_argument(site: Site) -> Iterator[Span]:
    """One argument removed (``round(x, 2)`` → ``round(x)``): PraPR's ARGUMENTS_LIST_MUTATOR; TBar FP10."""
    raw = site.raw
    for node in site.nodes:
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        items: Sequence[ast.expr | ast.keyword] = sorted([*node.args, *node.keywords], key=lambda a: a.col_offset)
        if len(items) == 1 and not (isinstance(items[0], ast.Constant) and not node.keywords):
            continue  # ``f(x)`` → ``f()`` only for a literal argument (``split(",")``)
        for i, item in enumerate(items):
            start, stop = item.col_offset, end(item)
            if i + 1 < len(items):
                stop = items[i + 1].col_offset
            elif i > 0:
                start = end(items[i - 1])
            text = raw[item.col_offset : end(item)].decode()
            yield Span(start, stop, "", f"drop the argument `{text}`")


def add_literal(site: Site) -> Iterator[Span]:
    """``f(a)`` → ``f(a, 0)`` (or 1, None) where ``f``, defined here, takes more: TBar FP10; PraPR ARGUMENTS_LIST."""
    for node, at, comma in open_slots(site):
        for value in ("0", "1", "None"):
            yield Span(at, at, f"{comma}{value}", f"add the argument `{value}` to `{segment(site.raw, node.func)}`")


def open_slots(site: Site) -> Iterator[tuple[ast.Call, int, str]]:
    """The calls on the line to a function of this module that takes more positional arguments than given."""
    for node in site.nodes:
        if not isinstance(node, ast.Call) or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        func = node.func
        callee = (
            func.id if isinstance(func, ast.Name) else receiver_of(func) if isinstance(func, ast.Attribute) else None
        )
        if isinstance(func, ast.Attribute) and callee is not None:
            callee = f"{callee}.{func.attr}"
        arity = site.arities.get(callee or "")
        if arity is None or len(node.args) >= arity[1]:
            continue
        if node.args:
            yield node, end(node.args[-1]), ", "
        else:
            yield node, end(node) - 1, ""
