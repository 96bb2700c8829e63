"""The statement families: a return value mutated, a guard or a base case inserted, a missing increment.

TBar's FP12 Mutate Return Statement, FP2 Insert Null Pointer Checker, FP3 Insert Range Checker and
FP4 Insert Missed Statement; PraPR's RETURN_VALS, PRECONDITION_ADDITION_MUTATOR and
RET_DEREFERENCE_GUARD_MUTATOR. An insertion is at most two lines, made before the site's line (a
guard) or after a loop's last line (an increment), and spelled with the function's own indentation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from chrysalis.repair.catalogue.site import Site, Span, end, is_predicate, segment

__all__ = ["base_case", "empty_guard", "missing_increment", "return_constant", "return_negated"]

GUARDED = 2
"""Parameters read on a line that a guard or a base case is tried for, in the order the line reads them."""
_EMPTIES = ("{p}", "None", "0", "[]")
"""What a guard returns for an empty (falsy) parameter ``p``: itself first, then the usual defaults."""
_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Raise)


# return


def return_negated(site: Site) -> Iterator[Span]:
    """``return e`` → ``return not e`` for a boolean ``e``: TBar FP12 Mutate Return Statement; PraPR's RETURN_VALS."""
    for statement in site.statements:
        value = statement.value if isinstance(statement, ast.Return) else None
        if value is None or value.lineno != site.number or value.end_lineno != site.number:
            continue
        if isinstance(value, ast.Compare | ast.Constant) or (
            isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        ):
            continue  # a comparison is negated by its operator, ``not`` by dropping it
        if not (site.scope.returns_bool or _boolean(value)):
            continue
        text = segment(site.raw, value)
        new = f"not {text}" if isinstance(value, ast.Name | ast.Attribute | ast.Call) else f"not ({text})"
        yield Span(value.col_offset, end(value), new, f"`return {text}` → `return {new}`")


def return_constant(site: Site) -> Iterator[Span]:
    """``return`` → ``return False`` (boolean functions), ``return x`` → ``return None``: TBar FP12; PIT RETURN_VALS."""
    for statement in site.statements:
        if not isinstance(statement, ast.Return):
            continue
        value = statement.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            if site.scope.returns_bool:
                start = statement.col_offset + len("return") if value is None else value.col_offset
                stop = start if value is None else end(value)
                for new in ("False", "True"):
                    yield Span(start, stop, f" {new}" if value is None else new, f"`return` → `return {new}`")
        elif isinstance(value, ast.Constant) or value.lineno != site.number or value.end_lineno != site.number:
            continue
        elif not (site.scope.returns_bool or _boolean(value)):
            yield Span(value.col_offset, end(value), "None", f"`return {segment(site.raw, value)}` → `return None`")


def _boolean(value: ast.expr) -> bool:
    """A value that is true or false by its shape: a constant, a comparison, ``and``/``or``, ``not``, a predicate."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, bool) or value.value is None
    negation = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
    return negation or isinstance(value, ast.Compare | ast.BoolOp) or is_predicate(value)


# guard


def empty_guard(site: Site) -> Iterator[Span]:
    """``if not p: return p`` (None, 0, []) before a line reading parameter ``p``: TBar FP2; PraPR DEREFERENCE_GUARD."""
    lead = _guardable(site)
    if lead is None:
        return
    unit = site.scope.indent
    values = _EMPTIES if _returns_value(site) else ("",)
    for param in _params_read(site):
        for shape in values:
            value = shape.format(p=param)
            ret = f"return {value}" if value else "return"
            guard = f"{lead}if not {param}:\n{lead}{unit}{ret}\n"
            yield Span(0, 0, guard, f"insert `if not {param}: {ret}`")


def base_case(site: Site) -> Iterator[Span]:
    """``if n <= 1: return n`` before a recursive function's line reading ``n``: TBar FP3 Insert Range Checker, FP4."""
    lead = _guardable(site)
    if lead is None or not site.scope.recursive or site.scope.function is None:
        return
    unit = site.scope.indent
    sequences = _sequences(site.scope.function)
    for param in _params_read(site):
        if param in sequences:
            shapes = [(f"len({param}) <= 1", param)]
        else:
            shapes = [(f"{param} <= 1", param), (f"{param} <= 1", "1")]
        for test, value in shapes:
            guard = f"{lead}if {test}:\n{lead}{unit}return {value}\n"
            yield Span(0, 0, guard, f"insert `if {test}: return {value}`")


def _guardable(site: Site) -> str | None:
    """The indentation of the line's statement, if a guard may go before it: a statement of the function's body."""
    func = site.scope.function
    if func is None or not site.statements or not any(s is site.statements[0] for s in func.body):
        return None
    statement = site.statements[0]
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return None  # the docstring
    text = site.raw.decode()
    return text[: len(text) - len(text.lstrip())]


def _params_read(site: Site) -> list[str]:
    read = [n.id for n in site.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [p for p in dict.fromkeys(read) if p in site.scope.params][:GUARDED]


def _returns_value(site: Site) -> bool:
    func = site.scope.function
    assert func is not None
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(func))


def _sequences(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the function measures (``len(xs)``) or slices (``xs[1:]``): sequences, not numbers."""
    found: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
            if isinstance(node.args[0], ast.Name):
                found.add(node.args[0].id)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice):
            found.add(node.value.id)
    return found


# increment


def missing_increment(site: Site) -> Iterator[Span]:
    """``i += 1`` appended to a ``while`` body that never moves its counter ``i``: TBar FP4 Insert Missed Statement."""
    func = site.scope.function
    if func is None:
        return
    for loop in ast.walk(func):
        if not isinstance(loop, ast.While) or not loop.lineno <= site.number <= (loop.end_lineno or 0):
            continue
        first, last = loop.body[0], loop.body[-1]
        if first.lineno == loop.lineno or isinstance(last, _LEAVES) or last.end_lineno is None:
            continue
        changed = {
            n.id for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        body_line = site.texts[first.lineno - 1]
        indent = body_line[: len(body_line) - len(body_line.lstrip())]
        at = len(site.line_text(last.end_lineno))
        for name, sign in _counters(loop.test):
            if name not in changed and name in site.scope.names:
                new = f"\n{indent}{name} {sign}= 1"
                yield Span(at, at, new, f"insert `{name} {sign}= 1` at the end of the loop", last.end_lineno)


def _counters(test: ast.expr) -> Iterator[tuple[str, str]]:
    """The names a loop's comparisons count with, and the way they must go (``i < n``: ``i`` up)."""
    seen: set[str] = set()
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        up = isinstance(node.ops[0], ast.Lt | ast.LtE | ast.NotEq)
        down = isinstance(node.ops[0], ast.Gt | ast.GtE)
        for operand, rising in ((node.left, up), (node.comparators[0], down)):
            if isinstance(operand, ast.Name) and operand.id not in seen and (up or down):
                seen.add(operand.id)
                yield operand.id, "+" if rising else "-"
