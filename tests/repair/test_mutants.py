"""Template candidates: one-token edits of the suspicious lines, spelled like the rest of the line."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chrysalis.llm.sampling import Sampler
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.repair.candidates import Candidate, CandidateSource
from chrysalis.repair.localise import Suspect
from chrysalis.repair.mutants import Mutant, mutants
from chrysalis.repair.rounds import next_templates

SEARCH = '''def last_below(xs, limit):
    """The index of the last item below ``limit``, or -1."""
    found = -1
    for i in range(len(xs) - 1):
        if xs[i] <= limit:  # strictly below, says the docstring
            found = i
    return found
'''


def _texts(source: str, lines: list[int]) -> list[str]:
    return [m.text.strip() for m in mutants(source, lines)]


def test_an_operator_edit_changes_the_token_and_keeps_the_line_as_written() -> None:
    texts = _texts(SEARCH, [5])
    assert "if xs[i] < limit:  # strictly below, says the docstring" in texts
    assert "if xs[i] >= limit:  # strictly below, says the docstring" in texts


def test_an_off_by_one_bound_is_dropped_or_moved() -> None:
    texts = _texts(SEARCH, [4])
    assert "for i in range(len(xs)):" in texts  # drop `- 1`
    assert "lo, hi = 0, len(xs) - 1" in _texts("def f(xs):\n    lo, hi = 0, len(xs)\n", [2])
    assert "for i in range(len(xs) - 1 + 1):" not in texts  # the bound's own `- 1` is the edit, not a new one


def test_arguments_and_non_commutative_operands_are_swapped_with_their_parentheses() -> None:
    source = "def f(a, b):\n    return pow(b, a) + a / (b - 1)\n"
    texts = _texts(source, [2])
    assert "return pow(a, b) + a / (b - 1)" in texts
    assert "return pow(b, a) + (b - 1) / a" in texts
    assert "return pow(b, a) + a / b" in texts  # `(b - 1)` loses its `- 1` and its parentheses


def test_constants_and_booleans_are_nudged() -> None:
    source = "def f(xs):\n    step = 16\n    return sorted(xs, reverse=False)[::step]\n"
    assert {"step = 17", "step = 15", "step = 0", "step = 1"} <= set(_texts(source, [2]))
    assert "return xs[::-1]" in _texts("def f(xs):\n    return xs[::1]\n", [2])
    assert "return sorted(xs, reverse=True)[::step]" in _texts(source, [3])


def test_variable_swaps_are_a_separate_group() -> None:
    operators = list(mutants(SEARCH, [5, 6]))
    swaps = list(mutants(SEARCH, [5, 6], variables=True))
    assert operators and all(not _is_name_edit(m) for m in operators)
    assert swaps and all(_is_name_edit(m) for m in swaps)
    assert any(m.line == 6 and m.text.strip() == "found = limit" for m in swaps)


def _is_name_edit(mutant: Mutant) -> bool:
    old, _, new = mutant.edit.strip("`").partition("` → `")
    return old.isidentifier() and new.isidentifier() and old not in ("True", "False")


def test_an_inner_function_can_use_its_outer_functions_names() -> None:
    source = "def outer(grid, rows):\n    def inner(r):\n        return r < grid\n    return inner(0)\n"
    assert "return r < rows" in [m.text.strip() for m in mutants(source, [3], variables=True)]


def test_nothing_for_lines_outside_the_file_or_a_file_that_does_not_parse() -> None:
    assert list(mutants(SEARCH, [0, 99])) == []
    assert list(mutants("def f(:\n", [1])) == []


def test_an_f_string_yields_no_garbled_edit() -> None:
    source = 'def f(n):\n    return f"{n + 1} items"\n'
    for mutant in mutants(source, [2]):
        if mutant.family != "return":  # ``return None`` replaces the whole value
            assert mutant.text.startswith('    return f"{') and mutant.text.endswith('} items"')


@settings(max_examples=60, deadline=None)
@given(
    left=st.sampled_from(["a", "b", "xs[i]", "len(xs)", "(a + 1)", "f(a, b)"]),
    op=st.sampled_from(["+", "-", "*", "//", "<", "<=", "==", "!=", "and", "or", "in", "not in"]),
    right=st.sampled_from(["a", "b", "1", "0", "xs[i - 1]", "(b - 2)"]),
)
def test_every_mutant_parses_and_changes_only_its_line(left: str, op: str, right: str) -> None:
    source = f"def g(a, b, xs, i):\n    x = {left} {op} {right}\n    return x\n"
    lines = source.splitlines()
    for mutant in mutants(source, [2, 3]):
        new = [*lines[: mutant.line - 1], mutant.text, *lines[mutant.line :]]
        ast.parse("\n".join(new))
        assert mutant.text != lines[mutant.line - 1]
        assert mutant.text.startswith("    ")


def test_repair_tries_variable_swaps_only_from_its_second_round(tmp_path: Path) -> None:
    (tmp_path / "search.py").write_text(SEARCH)
    source = CandidateSource(Sampler(ScriptedChatBackend([]), max_tokens=10), tmp_path, "")
    suspect = Suspect("search.py", "last_below", 1, 7, 1.0, (5,), (5, 6))
    started: dict[tuple[Suspect, bool], Iterator[Candidate]] = {}
    first = next_templates(source, [suspect], started, 500, 0, variables=False)
    later = next_templates(source, [suspect], started, 500, len(first), variables=True)
    assert first and all(c.form == "template" and "`found` →" not in c.reply for c in first)
    assert later and all(c.reply.startswith("`") for c in later) and any("→ `limit`" in c.reply for c in later)
    assert [c.index for c in [*first, *later]] == list(range(len(first) + len(later)))
