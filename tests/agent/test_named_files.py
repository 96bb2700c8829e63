"""An order that names files is not done while one of them is unchanged, though the tests pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.agent.named_files import files_named, unchanged
from chrysalis.agent.verify import change_orders
from chrysalis.llm.testing import ScriptedModel, final, tool
from tests.helpers import PYTEST_INI, run_agent

TRANSPOSE = (
    "Add a function transpose(m) to matrix.py, rewrite column_sums in ops.py to use it, "
    "and add tests for transpose in tests/test_matrix.py."
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "matrix.py").write_text("def row_sums(m):\n    return [sum(row) for row in m]\n")
    (root / "ops.py").write_text("from matrix import row_sums\n")
    (root / "utils.py").write_text("")
    (root / "tests" / "test_matrix.py").write_text(
        "from matrix import row_sums\n\n\ndef test_row_sums():\n    assert row_sums([[1, 2]]) == [3]\n"
    )
    (root / "pytest.ini").write_text(PYTEST_INI)
    return root


def test_the_files_an_order_names_are_those_it_would_change(project: Path) -> None:
    assert files_named(TRANSPOSE, project) == ("matrix.py", "ops.py", "tests/test_matrix.py")
    said_once = "Rename row_sums everywhere (matrix.py, ops.py and tests/test_matrix.py); matrix.py first."
    assert files_named(said_once, project) == ("matrix.py", "ops.py", "tests/test_matrix.py")


@pytest.mark.parametrize(
    "task",
    [
        "Add tests for utils.py to ops.py",  # utils.py is what the tests are for
        "Add a helper to ops.py written like utils.py",
        "Move row_sums from utils.py into ops.py",
        "Add a function to ops.py based on utils.py",
        "Add a function to ops.py and to missing.py",  # no such file: perhaps a slip for another name
        "Add a function to ops.py, not to ../outside.py",
        "Add a function to ops.py (see the style of utils.py)",
    ],
)
def test_a_file_named_as_read_or_missing_is_not_required(project: Path, task: str) -> None:
    assert files_named(task, project) == ("ops.py",)


def test_unchanged_compares_paths_not_spellings(project: Path) -> None:
    named = ("matrix.py", "tests/test_matrix.py")
    assert unchanged(named, [project / "matrix.py"], project) == ["tests/test_matrix.py"]
    assert unchanged(named, [Path("tests/test_matrix.py"), project / "./matrix.py"], project) == []


def test_an_order_done_in_one_of_its_named_files_is_sent_back_and_then_done(project: Path) -> None:
    add = tool(
        "edit_file",
        path="matrix.py",
        old_text="def row_sums(m):",
        new_text="def transpose(m):\n    return [list(c) for c in zip(*m)]\n\n\ndef row_sums(m):",
    )
    use = tool("write_file", path="ops.py", content="from matrix import row_sums, transpose\n")
    test = tool(
        "write_file",
        path="tests/test_matrix.py",
        content="from matrix import transpose\n\n\ndef test_transpose():\n    assert transpose([[1]]) == [[1]]\n",
    )
    script = ScriptedModel([add, final("Done."), use, test, final("Done, all three.")])
    result, _ = run_agent(project, script, TRANSPOSE, level=2, yes=True)
    told = [str(getattr(part, "content", "")) for message in script.seen[-1] for part in message.parts]
    expected = "Not done: the task names ops.py and tests/test_matrix.py, and this run did not change them."
    assert sum(expected in text for text in told) == 1
    assert result.success and result.verified is True and result.output == "Done, all three."


def test_an_order_left_half_done_is_not_a_success_though_the_tests_pass(project: Path) -> None:
    use = tool("write_file", path="ops.py", content="from matrix import row_sums\n\nTOTAL = 0\n")
    script = ScriptedModel([use, final("Done."), final("Done."), final("Done.")])
    result, _ = run_agent(project, script, TRANSPOSE, level=2, yes=True)
    assert not result.success and result.verified is False
    assert result.problem == "the task names matrix.py and tests/test_matrix.py, and this run did not change them"


def test_a_file_named_only_outside_the_orders_is_not_required(project: Path) -> None:
    task = "The tests in tests/test_matrix.py show how row_sums is used. Add transpose(m) to matrix.py."
    assert change_orders(task) == ["Add transpose(m) to matrix.py."]
    add = tool(
        "edit_file",
        path="matrix.py",
        old_text="def row_sums(m):",
        new_text="def transpose(m):\n    return [list(c) for c in zip(*m)]\n\n\ndef row_sums(m):",
    )
    result, _ = run_agent(project, ScriptedModel([add, final("Done.")]), task, level=2, yes=True)
    assert result.success and result.verified is True
