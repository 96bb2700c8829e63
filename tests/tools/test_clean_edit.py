"""Clean edits: a change that leaves dead code or a duplicated function is refused, and says how to fix it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.clean_edit import duplicated_functions, unreachable
from chrysalis.tools.files import edit_file, write_file
from tests.helpers import WriteLog

CALC = 'def subtract(a, b):\n    """Subtract b from a."""\n    return a + b\n'


def test_the_demos_shadowing_fix_is_refused_and_the_line_replacement_is_taken(
    ws: Path, ctx: ToolContext, writes: WriteLog
) -> None:
    (ws / "calc.py").write_text(CALC)
    shadow = {
        "path": "calc.py",
        "old_text": '    """Subtract b from a."""\n',
        "new_text": '    return a - b\n    """Subtract b from a."""\n',
    }
    result = edit_file(shadow, ctx)
    assert not result.ok and result.error is not None
    assert 'line 3: \'"""Subtract b from a."""\' (the return on line 2)' in result.error
    assert "Replace the wrong line itself" in result.error
    assert (ws / "calc.py").read_text() == CALC and writes.calls == []
    assert edit_file({"path": "calc.py", "old_text": "return a + b", "new_text": "return a - b"}, ctx).ok
    assert (ws / "calc.py").read_text() == CALC.replace("a + b", "a - b")


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    raise ValueError(x)\n    return x\n",
        "def f(xs):\n    for x in xs:\n        break\n        print(x)\n",
        "def f(xs):\n    for x in xs:\n        continue\n        print(x)\n",
        "def f(x):\n    if x:\n        return 1\n        x += 1\n    return 0\n",
    ],
)
def test_code_after_raise_break_continue_or_return_in_the_same_block_is_refused(
    ws: Path, ctx: ToolContext, body: str
) -> None:
    result = write_file({"path": "m.py", "content": body}, ctx)
    assert not result.ok and result.error is not None and "never runs" in result.error
    assert not (ws / "m.py").exists()


def test_a_new_function_pasted_over_an_old_def_line_is_refused_for_the_old_body_left_after_its_returns(
    ws: Path, ctx: ToolContext
) -> None:
    mean = 'def mean(values):\n    """Arithmetic mean."""\n    return sum(values) / len(values)\n'
    (ws / "stats.py").write_text(mean)
    median = "def median(xs):\n    if len(xs) % 2:\n        return xs[len(xs) // 2]\n    else:\n        return 0\n"
    result = edit_file({"path": "stats.py", "old_text": "def mean(values):\n", "new_text": median}, ctx)
    assert not result.ok and result.error is not None
    assert '\'"""Arithmetic mean."""\' (the if on line 2, every branch of it)' in result.error
    assert (ws / "stats.py").read_text() == mean
    open_ended = "def f(x):\n    if x:\n        return 1\n    elif x is None:\n        pass\n"
    open_ended += "    else:\n        return 2\n    return 3\n"
    assert unreachable(ast.parse(open_ended)) == []  # one branch falls through: what follows runs


def test_a_corrected_copy_beside_the_old_function_is_refused(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text(CALC)
    twice = edit_file({"path": "calc.py", "old_text": CALC, "new_text": CALC + "\n\n" + CALC.replace("+", "-")}, ctx)
    assert (
        not twice.ok
        and twice.error is not None
        and "a second definition of subtract() shadows the first" in twice.error
    )
    same_body = CALC + "\n\ndef minus(a, b):\n    " + '"""Subtract b from a."""\n    return a + b\n'
    copy = write_file({"path": "calc.py", "content": same_body}, ctx)
    assert not copy.ok and copy.error is not None and "minus() has the same body as subtract()" in copy.error


def test_dead_code_already_in_the_file_does_not_block_other_edits(ws: Path, ctx: ToolContext) -> None:
    (ws / "old.py").write_text("def f():\n    return 1\n    print('never')\n\n\ndef g():\n    return 2\n")
    assert edit_file({"path": "old.py", "old_text": "return 2", "new_text": "return 3"}, ctx).ok


def test_other_files_and_decorated_redefinitions_are_not_checked(ws: Path, ctx: ToolContext) -> None:
    assert write_file({"path": "notes.txt", "content": "return 1\nreturn 2\n"}, ctx).ok
    prop = (
        "class A:\n    @property\n    def x(self):\n        return 1\n\n"
        "    @x.setter\n    def x(self, v):\n        pass\n"
    )
    assert write_file({"path": "a.py", "content": prop}, ctx).ok
    assert duplicated_functions(ast.parse(prop)) == [] and unreachable(ast.parse(prop)) == []


def test_an_ambiguous_edit_names_each_function_and_gives_an_old_text_for_each(ws: Path, ctx: ToolContext) -> None:
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\n" + CALC)
    result = edit_file({"path": "calc.py", "old_text": "    return a + b\n", "new_text": "    return a - b\n"}, ctx)
    assert not result.ok and result.error is not None
    assert "line 2 (in add), line 7 (in subtract)" in result.error
    assert 'For the one in subtract, old_text:\n    """Subtract b from a."""\n    return a + b' in result.error
