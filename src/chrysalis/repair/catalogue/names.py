"""The operators that choose a name in scope: tried only from repair's second round.

A wrong name that happens to pass weak tests reads as nonsense (a colour compared with a graph), and
each site has as many of these edits as its function has names; so the model gets a round first.
TBar's FP13 Mutate Variable, FP10 and FP12; PraPR's LOCAL_NAME_MUTATOR and ARGUMENTS_LIST_MUTATOR.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from chrysalis.repair.catalogue.calls import open_slots
from chrysalis.repair.catalogue.site import Site, Span, end, segment

__all__ = ["add_name", "receiver", "return_name", "variable_misuse"]


def receiver(site: Site) -> Iterator[Span]:
    """``a.f(x)`` → ``b.f(x)``, another name of the function as the call's receiver: TBar FP10; PraPR LOCAL_NAME."""
    for node in site.nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            name = node.func.value
            for other in site.scope.names:
                if other != name.id:
                    yield Span(
                        name.col_offset, end(name), other, f"`{name.id}.{node.func.attr}` → `{other}.{node.func.attr}`"
                    )


def add_name(site: Site) -> Iterator[Span]:
    """``f(a)`` → ``f(a, b)``, a name in scope, where ``f`` (defined here) takes more: TBar FP10; PraPR ARGLIST."""
    for node, at, comma in open_slots(site):
        given = {a.id for a in node.args if isinstance(a, ast.Name)}
        callee = segment(site.raw, node.func)
        for other in site.scope.names:
            if other not in given:
                yield Span(at, at, f"{comma}{other}", f"`{callee}(...)` → `{callee}(..., {other})`")


def return_name(site: Site) -> Iterator[Span]:
    """``return expr`` → ``return y``, another name of the function: TBar FP12 Mutate Return Statement."""
    for statement in site.statements:
        value = statement.value if isinstance(statement, ast.Return) else None
        if value is None or isinstance(value, ast.Name | ast.Constant) or value.end_lineno != site.number:
            continue  # a returned name is variable misuse's to replace
        text = segment(site.raw, value)
        for other in site.scope.names:
            yield Span(value.col_offset, end(value), other, f"`return {text}` → `return {other}`")


def variable_misuse(site: Site) -> Iterator[Span]:
    """Each name read on the line → each other name of its function: TBar FP13; PraPR's LOCAL_NAME_MUTATOR."""
    names = site.scope.names
    for node in site.nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            for other in names:
                if other != node.id:
                    yield Span(node.col_offset, end(node), other, f"`{node.id}` → `{other}`")
