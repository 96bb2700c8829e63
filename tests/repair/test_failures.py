"""The failing tests' output as a prompt shows it: got and expected first, the passing tests left out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chrysalis.repair.failures import MAX_BLOCKS, FailedAssertion, assertions, failure_digest

PROGRAM = '''def last_index(xs, x):
    """The index of the last x in xs, or -1."""
    for i in range(len(xs) - 1, 0, -1):
        if xs[i] == x:
            return i
    return -1
'''
TESTS = """from program import last_index


def test_found_at_the_end():
    assert last_index([1, 2, 3], 3) == 2


def test_found_at_the_start():
    assert last_index([7, 1, 2], 7) == 0


def test_missing():
    assert last_index([1], 5) == -1


def test_truthy():
    assert last_index([4], 4) >= 0
"""


def pytest_output(folder: Path, tests: str = TESTS, *extra: str) -> str:
    (folder / "program.py").write_text(PROGRAM)
    (folder / "test_program.py").write_text(tests)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", "--tb=short", *extra],
        cwd=folder,
        capture_output=True,
        text=True,
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PATH": "/usr/bin:/bin"},
    )
    return done.stdout


def test_each_failing_comparison_is_read_with_the_call_that_gave_it(tmp_path: Path) -> None:
    found = assertions(pytest_output(tmp_path))
    assert found == [
        FailedAssertion("test_found_at_the_start", "-1", "==", "0", "last_index([7, 1, 2], 7)"),
        FailedAssertion("test_truthy", "-1", ">=", "0", "last_index([4], 4)"),
    ]
    assert found[0].sentence() == "test_found_at_the_start: last_index([7, 1, 2], 7) returned -1; the test expected 0."
    assert found[1].sentence() == "test_truthy: last_index([4], 4) returned -1; the test expected >= 0."


def test_the_digest_leaves_out_the_passing_tests_and_leads_with_got_and_expected(tmp_path: Path) -> None:
    digest = failure_digest(pytest_output(tmp_path))
    assert "PASSED" not in digest
    assert digest.splitlines()[0] == (
        "test_found_at_the_start: last_index([7, 1, 2], 7) returned -1; the test expected 0."
    )
    assert "assert last_index([7, 1, 2], 7) == 0" in digest


def test_a_failure_with_no_comparison_keeps_its_traceback(tmp_path: Path) -> None:
    output = pytest_output(tmp_path, "from program import last_index\n\ndef test_x():\n    last_index(None, 1)\n")
    digest = failure_digest(output)
    assert digest.startswith("test_x:")
    assert "TypeError" in digest


def test_many_failing_tests_are_shown_in_part_and_named_in_full(tmp_path: Path) -> None:
    tests = "from program import last_index\n" + "".join(
        f"\ndef test_{n}():\n    assert last_index([{n}, 9], {n}) == 0\n" for n in range(MAX_BLOCKS + 2)
    )
    digest = failure_digest(pytest_output(tmp_path, tests), max_lines=200)
    assert digest.count("returned -1; the test expected 0.") == MAX_BLOCKS
    assert digest.splitlines()[-1] == f"Also failing: test_{MAX_BLOCKS}, test_{MAX_BLOCKS + 1}"


def test_output_it_cannot_read_is_kept_as_its_last_lines() -> None:
    output = "\n".join(f"line {n}" for n in range(100))
    assert failure_digest(output, max_lines=3) == "line 97\nline 98\nline 99"
