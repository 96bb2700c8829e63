"""The template catalogue, family by family: a shape where the family's edit is the fix, and one where it must not fire.

Every shape here is invented for these tests (a shopping cart, a calendar helper, a tokenizer, a
linked list); none comes from a benchmark.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections import Counter
from dataclasses import dataclass

import pytest

from chrysalis.repair.catalogue import FAMILIES
from chrysalis.repair.mutants import mutants


@dataclass(frozen=True)
class Case:
    family: str
    source: str
    buggy: str
    """The buggy line, stripped (the edit is made on it)."""
    fixed: str
    """The fixed line, stripped (or for an insertion, the lines inserted and the buggy line, stripped, joined by /)."""


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _line(source: str, buggy: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.strip() == buggy)


def _made(source: str, buggy: str, *, variables: bool = False) -> dict[str, str]:
    """The edits of the buggy line: each new text (lines stripped and joined by /) -> its family."""
    found: dict[str, str] = {}
    for mutant in mutants(source, [_line(source, buggy)], variables=variables):
        found.setdefault(" / ".join(part.strip() for part in mutant.text.splitlines()), mutant.family)
    return found


WEEKEND = _source('''
    def is_weekend(day):
        """Monday is 0, Sunday 6."""
        return day > 5
''')
TOKENS = _source("""
    DIGITS = "0123456789"


    def kinds(text):
        out = []
        for ch in text:
            if ch in DIGITS:
                kind = "num"
            elif ch == " ":
                kind = "space"
            else:
                kind = "num"
            out.append(kind)
        return out
""")
PAGES = _source("""
    def pages(total, per_page):
        full = total / per_page
        return full + (1 if total % per_page else 0)
""")
CART = _source("""
    class Cart:
        def __init__(self):
            self.items = []
            self.coupon = None

        def is_empty(self):
            return len(self.items) == 0

        def checkout(self, paid):
            if self.is_empty():
                return "nothing to pay"
            if paid and self.coupon:
                return "paid with coupon"
            return "paid"
""")
SLICES = _source("""
    def middle(xs):
        return xs[1:-1]


    def tail(xs):
        return xs[1:]


    def steps(n):
        return [i * i for i in range(n)]
""")
LITERALS = _source("""
    def collect(words):
        seen = {}
        for word in words:
            seen.add(word)
        return sorted(seen)


    def offset(kind):
        if kind == "before":
            return 1
        return 1


    def running_totals(xs):
        sums = []
        for x in xs:
            sums.append(sums[-1] + x)
        return sums[1:]


    def tags(post):
        out = ["draft"]
        for tag in post:
            out.append(tag)
        return out
""")
PRICES = _source("""
    import math


    def cheapest(prices):
        return max(prices)


    def boxes(items, per_box):
        return math.floor(items / per_box)


    def next_in_queue(queue):
        return queue.pop()
""")
LINKED = _source("""
    class Node:
        def __init__(self, value):
            self.value = value
            self.prev = None
            self.next = None


    def last(node):
        while node.next is not None:
            node = node.prev
        return node
""")
ARGUMENTS = _source("""
    def clamp(value, low, high):
        return max(low, min(value, high))


    def fit(value):
        return clamp(value, 10, 0)


    def to_cents(amount):
        return round(amount * 100, 2) // 1


    def window(xs, size, start=0):
        return xs[start : start + size]


    def first_pair(xs, skip):
        return window(xs, 2)
""")
RETURNS = _source("""
    def has_discount(cart):
        return any(line < 0 for line in cart)


    def valid(code):
        if not code:
            return
        return code.isalnum()
""")
GUARDS = _source("""
    def average(prices):
        total = sum(prices)
        return total / len(prices)


    def stairs(levels):
        return levels + stairs(levels - 1)


    def backwards(word):
        return backwards(word[1:]) + word[0]
""")
CLOCK = _source("""
    class Clock:
        def __init__(self, seconds):
            self.seconds = seconds

        def hours(self):
            return self.seconds // 3600

        def minutes(self):
            return self.seconds // 60 % 60

        def label(self):
            return str(self.minutes()) + "h"
""")
COUNTING = _source("""
    def commas(tokens):
        i = 0
        count = 0
        while i < len(tokens):
            if tokens[i] == ",":
                count += 1
        return count
""")


CASES = [
    Case("comparison", WEEKEND, "return day > 5", "return day >= 5"),
    Case("comparison", TOKENS, 'elif ch == " ":', 'elif ch != " ":'),
    Case("comparison", TOKENS, "if ch in DIGITS:", "if ch not in DIGITS:"),
    Case("comparison", LINKED, "while node.next is not None:", "while node.next is None:"),
    Case("arithmetic", PAGES, "full = total / per_page", "full = total // per_page"),
    Case(
        "arithmetic",
        PAGES,
        "return full + (1 if total % per_page else 0)",
        "return full + (1 if total // per_page else 0)",
    ),
    Case("logic", CART, "if paid and self.coupon:", "if paid or self.coupon:"),
    Case("logic", CART, "if paid and self.coupon:", "if self.coupon:"),
    Case("logic", CART, "if self.is_empty():", "if not self.is_empty():"),
    Case("bounds", SLICES, "return xs[1:-1]", "return xs[1:]"),
    Case("bounds", SLICES, "return xs[1:]", "return xs[:]"),
    Case("bounds", SLICES, "return [i * i for i in range(n)]", "return [i * i for i in range(1, n)]"),
    Case("bounds", SLICES, "return [i * i for i in range(n)]", "return [i * i for i in range(n + 1)]"),
    Case("literal", TOKENS, 'kind = "num"', 'kind = "space"'),
    Case("literal", LITERALS, "seen = {}", "seen = set()"),
    Case("literal", LITERALS, "return 1", "return -1"),
    Case("literal", LITERALS, "sums = []", "sums = [0]"),
    Case("literal", LITERALS, 'out = ["draft"]', "out = []"),
    Case("builtin", PRICES, "return max(prices)", "return min(prices)"),
    Case("builtin", PRICES, "return math.floor(items / per_box)", "return math.ceil(items / per_box)"),
    Case("builtin", PRICES, "return queue.pop()", "return queue.pop(0)"),
    Case("attribute", LINKED, "node = node.prev", "node = node.next"),
    Case("attribute", CLOCK, 'return str(self.minutes()) + "h"', 'return str(self.hours()) + "h"'),
    Case("arguments", ARGUMENTS, "return clamp(value, 10, 0)", "return clamp(value, 0, 10)"),
    Case("arguments", ARGUMENTS, "return round(amount * 100, 2) // 1", "return round(amount * 100) // 1"),
    Case("arguments", ARGUMENTS, "return window(xs, 2)", "return window(xs, 2, 1)"),
    Case("return", RETURNS, "return any(line < 0 for line in cart)", "return not any(line < 0 for line in cart)"),
    Case("return", RETURNS, "return", "return False"),
    Case("guard", GUARDS, "return total / len(prices)", "if not prices: / return 0 / return total / len(prices)"),
    Case(
        "guard",
        GUARDS,
        "return levels + stairs(levels - 1)",
        "if levels <= 1: / return levels / return levels + stairs(levels - 1)",
    ),
    Case(
        "guard",
        GUARDS,
        "return backwards(word[1:]) + word[0]",
        "if len(word) <= 1: / return word / return backwards(word[1:]) + word[0]",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.family}: {c.fixed}")
def test_each_family_makes_the_fix(case: Case) -> None:
    made = _made(case.source, case.buggy)
    assert made.get(case.fixed) == case.family, sorted(made)


def test_a_missing_increment_is_appended_to_the_loop_body() -> None:
    line = _line(COUNTING, "while i < len(tokens):")
    (mutant,) = [m for m in mutants(COUNTING, [line]) if m.family == "increment"]
    assert mutant.line == _line(COUNTING, "count += 1") and mutant.text == "            count += 1\n        i += 1"


@dataclass(frozen=True)
class Quiet:
    family: str
    source: str
    buggy: str
    why: str


QUIET = [
    Quiet("comparison", PAGES, "full = total / per_page", "no comparison on the line"),
    Quiet("arithmetic", PRICES, "return max(prices)", "no operator on the line"),
    Quiet("logic", TOKENS, "if ch in DIGITS:", "a comparison is negated by its operator, not wrapped in `not`"),
    Quiet("bounds", _source("def evens(xs):\n    return xs[::2]\n"), "return xs[::2]", "a step is not a bound"),
    Quiet("literal", WEEKEND, '"""Monday is 0, Sunday 6."""', "a docstring is not a literal to change"),
    Quiet(
        "builtin",
        _source("def f(xs):\n    return sorted(xs, key=abs)\n"),
        "return sorted(xs, key=abs)",
        "reversed takes no key",
    ),
    Quiet("attribute", PRICES, "return queue.pop()", "nothing else is called on `queue`"),
    Quiet("arguments", PRICES, "return max(prices)", "a lone argument that is no literal, to a builtin"),
    Quiet("variable", WEEKEND, "return day > 5", "names in scope wait for the second round"),
    Quiet("return", WEEKEND, "return day > 5", "a comparison is negated by its operator, not `return None`"),
    Quiet("guard", COUNTING, "count += 1", "no guard inside a loop's body"),
    Quiet(
        "increment",
        COUNTING.replace("count += 1", "count += 1\n        i += 1"),
        "while i < len(tokens):",
        "the counter moves",
    ),
]


@pytest.mark.parametrize("quiet", QUIET, ids=lambda q: f"{q.family}: {q.why}")
def test_a_family_stays_quiet_where_its_edit_does_not_apply(quiet: Quiet) -> None:
    made = _made(quiet.source, quiet.buggy)
    assert quiet.family not in made.values(), sorted(made)


def test_an_attribute_comes_only_from_objects_of_the_same_name() -> None:
    made = _made(LINKED, "node = node.prev")
    assert "node = node.next" in made and "node = node.value" not in made  # ``value`` is used on ``self`` only


def test_arguments_are_added_only_where_the_function_takes_more_and_removed_only_if_not_alone() -> None:
    assert not any(
        edit.startswith("return clamp(value, 10, 0,") for edit in _made(ARGUMENTS, "return clamp(value, 10, 0)")
    )
    assert "return max()" not in _made(PRICES, "return max(prices)")


def test_a_base_case_only_for_a_recursive_function_and_a_guard_only_for_a_parameter_read() -> None:
    made = _made(GUARDS, "return total / len(prices)")
    assert not any(text.startswith("if prices <= 1") or text.startswith("if len(prices)") for text in made)
    assert not any(text.startswith("if not total") for text in made)  # a local, not a parameter


def test_the_names_in_scope_wait_for_the_second_round() -> None:
    merge = _source("""
        def merge(left, right):
            out = []
            left.extend(right)
            return out + left[:0]
    """)
    first, later = _made(merge, "left.extend(right)"), _made(merge, "left.extend(right)", variables=True)
    assert "out.extend(right)" not in first and later.get("out.extend(right)") == "arguments"
    assert "return left" not in _made(merge, "return out + left[:0]")
    assert _made(merge, "return out + left[:0]", variables=True).get("return left") == "return"
    assert _made(ARGUMENTS, "return window(xs, 2)", variables=True).get("return window(xs, 2, skip)") == "arguments"
    assert set(later.values()) <= {"arguments", "return", "variable"}


DURATION = _source('''
    UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


    def parse_duration(text, default_unit="s", strict=False):
        """Seconds in a duration such as ``1h 30m`` or ``90``."""
        if not text:
            return 0
        total = 0
        number = ""
        i = 0
        while i < len(text):
            ch = text[i]
            if ch.isdigit():
                number += ch
            elif ch in UNITS:
                if not number:
                    raise ValueError(f"no number before {ch!r}")
                total += int(number) * UNITS[ch]
                number = ""
            elif ch == " " or ch == ",":
                pass
            elif strict:
                raise ValueError(f"unknown unit {ch!r}")
            i += 1
        if number:
            total += int(number) * UNITS[default_unit]
        parts = text.split()
        if len(parts) > 3 and strict:
            raise ValueError("too many parts")
        return max(total, 0)
''')


def _body_lines(source: str) -> list[int]:
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    docstring = func.body[0]
    return [n.lineno for n in ast.walk(func) if isinstance(n, ast.stmt) and n not in (func, docstring)]


def test_a_typical_function_gets_a_bounded_number_of_templates_per_line() -> None:
    lines = sorted(set(_body_lines(DURATION)))
    first = list(mutants(DURATION, lines))
    per_line = Counter(m.line for m in first)
    assert len(lines) >= 25
    assert len(first) <= 8 * len(lines), (len(first), per_line)
    assert max(per_line.values()) <= 25, per_line  # the most suspicious line fits in one round's 40
    later = list(mutants(DURATION, lines, variables=True))
    assert {m.family for m in later} <= {"variable", "arguments", "return"}


def test_templates_go_line_by_line_then_family_by_family() -> None:
    order = [family.name for family in FAMILIES]
    lines = [_line(DURATION, "total += int(number) * UNITS[ch]"), _line(DURATION, "if len(parts) > 3 and strict:")]
    made = list(mutants(DURATION, lines))
    sites = [m.line for m in made]
    assert sites == sorted(sites, key=lines.index)  # the first line given (the most suspicious) first
    for line in lines:
        families = [order.index(m.family) for m in made if m.line == line]
        assert families == sorted(families) and len(set(families)) >= 3


def test_every_operator_names_the_pattern_or_mutator_it_spells() -> None:
    for family in FAMILIES:
        assert "TBar" in family.source
        for operator in (*family.operators, *family.later):
            doc = inspect.getdoc(operator) or ""
            assert "\n" not in doc and any(name in doc for name in ("TBar", "PraPR", "PIT")), operator.__name__
