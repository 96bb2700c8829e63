"""bench/differential.py: a candidate is compared with the reference program over random trials, in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import load_bench_module

differential = load_bench_module("differential")

PROGRAM = '''def total(values):
    """The sum of a non-empty list."""
    if not values:
        raise ValueError("no values")
    return sum(values)
'''
TRIAL = """def trial(module, rng):
    values = [rng.randint(-5, 5) for _ in range(rng.randint(0, 4))]
    return module.total(values)
"""
TESTS = """import pytest

from tally import total


def test_sums():
    assert total([1, 2, 3]) == 6


def test_one_value():
    assert total([4]) == 4


def test_negatives():
    assert total([-1, -2]) == -3


def test_empty_is_refused():
    with pytest.raises(ValueError):
        total([])
"""


@pytest.fixture
def bug(tmp_path: Path) -> Path:
    """A bug folder whose program sums a list (and refuses an empty one); its bug drops the first value."""
    folder = tmp_path / "tally"
    folder.mkdir()
    padding = "".join(f"\n\ndef helper_{i}():\n    return {i}\n" for i in range(6))  # the format wants 25+ lines
    (folder / "tally.py").write_text(PROGRAM + padding)
    (folder / "differential.py").write_text(TRIAL)
    (folder / "test_tally.py").write_text(TESTS)
    meta = {
        "category": "numeric",
        "kind": "value_misuse",
        "pattern": "slice_bound",
        "symptom": "wrong_result",
        "fixed": "    return sum(values)",
        "buggy": "    return sum(values[1:])",
        "description": "total() leaves out the first value.",
    }
    (folder / "bug.json").write_text(json.dumps(meta))
    return folder


def check(folder: Path, candidate: str, **options: float) -> Any:
    return differential.differential_check(folder, candidate, trials=30, **options)


def test_the_reference_agrees_with_itself(bug: Path) -> None:
    verdict = check(bug, (bug / "tally.py").read_text())
    assert verdict == differential.DifferentialVerdict(
        agrees=True, trials=30, disagreements=0, first=None, timed_out=False
    )


def test_a_wrong_value_disagrees_and_the_first_trial_is_shown(bug: Path) -> None:
    verdict = differential.differential_check(bug, PROGRAM.replace("sum(values)", "sum(values) + 1"), trials=30)
    assert not verdict.agrees and not verdict.timed_out
    # Trials with an empty list raise on both sides and agree; every other trial is off by one.
    assert 0 < verdict.disagreements < 30
    assert verdict.first.startswith("trial ")
    assert "reference " in verdict.first and "candidate " in verdict.first


def test_exceptions_compare_by_type_not_message(bug: Path) -> None:
    same_type = PROGRAM.replace('ValueError("no values")', 'ValueError("nothing to add")')
    assert check(bug, same_type).agrees
    other_type = PROGRAM.replace('ValueError("no values")', "KeyError(0)")
    verdict = check(bug, other_type)
    assert not verdict.agrees
    assert "raises ValueError" in verdict.first and "raises KeyError" in verdict.first


def test_types_compare_strictly(bug: Path) -> None:
    # 6.0 == 6 in Python, but a float where the reference returns an int is a different result.
    verdict = check(bug, PROGRAM.replace("sum(values)", "float(sum(values))"))
    assert not verdict.agrees
    assert verdict.first is not None and ".0" in verdict.first


def test_a_candidate_that_loops_forever_is_cut_by_the_timeout(bug: Path) -> None:
    looping = PROGRAM.replace("    return sum(values)", "    while values:\n        pass")
    verdict = check(bug, looping, timeout_s=2.0)
    assert verdict.timed_out and not verdict.agrees
    assert verdict.disagreements == 1
    assert "timed out" in verdict.first


def test_a_candidate_that_does_not_parse_raises_on_every_trial(bug: Path) -> None:
    verdict = check(bug, "def total(values:\n    return 0\n")
    assert not verdict.agrees and not verdict.timed_out
    assert verdict.disagreements == verdict.trials == 30
    assert "raises SyntaxError" in verdict.first


def test_a_candidate_that_exits_or_prints_does_not_break_the_check(bug: Path) -> None:
    printing = PROGRAM.replace("    return sum(values)", "    print('{\"done\": true}')\n    return sum(values)")
    assert check(bug, printing).agrees
    exiting = PROGRAM.replace("    return sum(values)", "    raise SystemExit(0)")
    verdict = check(bug, exiting)
    assert not verdict.agrees and "raises SystemExit" in verdict.first


def test_a_broken_differential_is_the_folders_fault(bug: Path) -> None:
    (bug / "differential.py").write_text("def trial(module, rng)\n")
    with pytest.raises(differential.DifferentialError, match="SyntaxError"):
        check(bug, PROGRAM)


def test_the_set_check_accepts_a_valid_bug_and_names_what_is_wrong(bug: Path) -> None:
    good = differential.check_bug(bug, trials=30)
    assert good.problems == () and good.tests_ok and good.differential_ok
    meta = json.loads((bug / "bug.json").read_text())
    meta.update(kind="typo", fixed="    return sum(values)  # not in the program")
    (bug / "bug.json").write_text(json.dumps(meta))
    bad = differential.check_bug(bug, trials=30)
    assert not bad.tests_ok and not bad.differential_ok
    assert any("kind 'typo'" in problem for problem in bad.problems)
    assert any("occurs 0 times" in problem for problem in bad.problems)


def test_the_set_check_refuses_a_bug_the_differential_cannot_see(bug: Path) -> None:
    # Dropping the guard only changes empty lists: sum([]) == 0 where the reference raises. Trials make
    # empty lists, so make the differential avoid them: then the bug is invisible to it.
    (bug / "differential.py").write_text(TRIAL.replace("randint(0, 4)", "randint(1, 4)"))
    meta = json.loads((bug / "bug.json").read_text())
    meta.update(fixed='        raise ValueError("no values")', buggy="        return 0", symptom="wrong_result")
    (bug / "bug.json").write_text(json.dumps(meta))
    result = differential.check_bug(bug, trials=30)
    assert result.tests_ok and not result.differential_ok
    assert any("agrees with the reference" in problem for problem in result.problems)
