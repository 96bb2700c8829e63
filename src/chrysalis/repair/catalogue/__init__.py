"""The template catalogue: the fix-pattern families of TBar and PraPR, spelled for Python, in the order tried.

Template-based repair tries, on each suspicious line, the edits that published catalogues found to
fix real one-line bugs: TBar's fix patterns (Liu et al., ISSTA 2019: FP1-FP15, mined from the
repair literature) and PraPR's mutators (Ghanbari et al., ISSTA 2019: PIT's traditional mutators
plus its own augmented ones). Each operator's docstring names the pattern or mutator it spells;
nothing here is chosen by what a benchmark happens to need.

The order is the order to try them (repair validates only ``RepairConfig.templates`` a round): the
line first (most suspicious first), then the family, in ``FAMILIES``' order:

1. ``comparison``: ``<`` ↔ ``<=``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in``, ``<`` ↔ ``>``.
2. ``arithmetic``: ``+`` ↔ ``-``, ``/`` ↔ ``//``, ``+=`` ↔ ``-=``, a ``+ 1`` dropped, operands swapped, ``-x`` → ``x``.
3. ``logic``: ``and`` ↔ ``or``, an operand of ``and``/``or`` dropped, ``not`` dropped, ``if c`` → ``if not c``.
4. ``bounds``: a ``range`` bound, an index, a slice bound or ``len(xs)`` moved by one; ``range(n)`` →
   ``range(1, n)``; a slice bound dropped.
5. ``literal``: an integer nudged, a boolean flipped, a literal → another of its type in the function,
   a container emptied (``[0]`` for ``[]``, ``set()`` ↔ ``{}``).
6. ``builtin``: a sibling builtin or method (``min`` ↔ ``max``, ``append`` ↔ ``extend``, ``pop(0)`` ↔ ``pop()``).
7. ``attribute``: another field or method used on an object of the same name (``self.prev`` ↔ ``self.next``).
8. ``arguments``: two arguments swapped, one removed, a literal added (0, 1, None).
9. ``return``: ``return e`` → ``return not e`` (booleans), ``return`` → ``return False``, ``return x`` →
   ``return None``.
10. ``guard``: ``if not p: return p`` before a line reading parameter ``p``; a base case ``if n <= 1:
    return n`` in a recursive function.
11. ``increment``: ``i += 1`` at the end of a ``while`` body that never changes its counter.
12. ``variable``: a name read replaced by another name of its function.

The one-token edits of an operator, a bound or a literal come first: both catalogues share them
(PIT's traditional mutators in PraPR, TBar's FP9 and FP11), and each has few variants on a line.
The edits that pick among many (another literal, another attribute) and the insertions follow. The
families whose edits choose a name in scope (``variable``; an argument's name, a call's receiver, a
returned name) form the later group: they are many per line, rarely right and the likeliest to pass
weak tests with nonsense, so repair tries them from its second round only, after the model has had
one (``Family.later``, ``mutants(..., variables=True)``), in the same family order.
"""

from __future__ import annotations

from chrysalis.repair.catalogue import calls, literals, names, operators, statements
from chrysalis.repair.catalogue.site import Facts, Family, Operator, Site, Span

__all__ = ["FAMILIES", "Facts", "Family", "Operator", "Site", "Span"]

FAMILIES: tuple[Family, ...] = (
    Family(
        "comparison",
        "TBar FP11 Mutate Operators; PraPR CONDITIONALS_BOUNDARY, NEGATE_CONDITIONALS",
        (operators.boundary, operators.negate_comparison, operators.direction),
    ),
    Family(
        "arithmetic",
        "TBar FP8 Mutate Integer Division Operation, FP11 Mutate Operators; PraPR MATH, INCREMENTS, INVERT_NEGS",
        (
            operators.arithmetic_swap,
            operators.augmented_swap,
            operators.drop_one,
            operators.swap_operands,
            operators.invert_negative,
        ),
    ),
    Family(
        "logic",
        "TBar FP6 Mutate Conditional Expression, FP11 Mutate Operators; PraPR NEGATE_CONDITIONALS",
        (operators.and_or, operators.drop_operand, operators.drop_not, operators.negate_condition),
    ),
    Family(
        "bounds",
        "TBar FP9 Mutate Literal Expression, FP11 Mutate Operators (an off-by-one bound)",
        (literals.range_bounds, literals.index_bounds, literals.length, literals.slice_drop),
    ),
    Family(
        "literal",
        "TBar FP9 Mutate Literal Expression, FP7 Mutate Data Type; PraPR INLINE_CONSTS",
        (literals.numbers, literals.booleans, literals.kindred, literals.containers),
    ),
    Family(
        "builtin",
        "TBar FP10 Mutate Method Invocation Expression; PraPR METHOD_NAME_MUTATOR",
        (calls.sibling_builtins, calls.sibling_methods, calls.pop_insert),
    ),
    Family(
        "attribute",
        "TBar FP10, FP13 Mutate Variable (a field); PraPR FIELD_NAME_MUTATOR, METHOD_NAME_MUTATOR",
        (calls.fields, calls.methods),
    ),
    Family(
        "arguments",
        "TBar FP10 Mutate Method Invocation Expression; PraPR ARGUMENTS_LIST_MUTATOR, LOCAL_NAME_MUTATOR",
        (calls.swap_arguments, calls.remove_argument, calls.add_literal),
        later=(names.receiver, names.add_name),
    ),
    Family(
        "return",
        "TBar FP12 Mutate Return Statement; PraPR RETURN_VALS",
        (statements.return_negated, statements.return_constant),
        later=(names.return_name,),
    ),
    Family(
        "guard",
        "TBar FP2 Insert Null Pointer Checker, FP3 Insert Range Checker, FP4 Insert Missed Statement; "
        "PraPR PRECONDITION_ADDITION_MUTATOR, RET_DEREFERENCE_GUARD_MUTATOR",
        (statements.empty_guard, statements.base_case),
    ),
    Family("increment", "TBar FP4 Insert Missed Statement", (statements.missing_increment,)),
    Family("variable", "TBar FP13 Mutate Variable; PraPR LOCAL_NAME_MUTATOR", (), later=(names.variable_misuse,)),
)
"""The families in the order tried on each line; within one, its operators in order."""
