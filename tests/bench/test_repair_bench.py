"""bench/repair_bugs.py and bench/repair.py: the bug set is sound, and "clean" and the summary mean what they say."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.helpers import load_bench_module

bugs_module = load_bench_module("repair_bugs")
bench = load_bench_module("repair")
homes = load_bench_module("homes")
BUGS = bugs_module.load_all()


def test_the_set_has_forty_bugs_of_every_kind_in_every_category() -> None:
    assert len(BUGS) >= 40
    kinds, categories = Counter(b.kind for b in BUGS), Counter(b.category for b in BUGS)
    assert set(kinds) == set(bugs_module.KINDS) and min(kinds.values()) >= 5
    assert set(categories) == set(bugs_module.CATEGORIES)


def test_every_program_passes_its_tests_and_every_bug_fails_them() -> None:
    assert bugs_module.check(BUGS) == []


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_each_bug_is_one_line_and_the_original_is_a_clean_exact_fix(bug: object) -> None:
    buggy, correct = bug.buggy_text(), bug.correct  # type: ignore[attr-defined]
    assert buggy != correct
    assert abs(len(buggy.splitlines()) - len(correct.splitlines())) <= 1
    assert bug.is_clean(correct) and bug.is_exact(correct)  # type: ignore[attr-defined]


def test_a_fix_that_also_changes_another_line_or_adds_dead_code_is_not_clean() -> None:
    bug = bugs_module.load("binary_search")
    fixed = bug.correct
    assert not bug.is_clean(fixed.replace("    return -1\n", "    return -2 + 1\n"))
    wrong_line = "    lo, hi = 0, len(xs)\n"
    shadowing = bug.buggy_text().replace(wrong_line, "    lo, hi = 0, len(xs) - 1\n" + wrong_line)
    assert not bug.is_clean(shadowing)
    deleted = bugs_module.load("count_paths")
    assert deleted.buggy is None and deleted.is_clean(deleted.correct)
    assert not deleted.is_clean(deleted.buggy_text() + "\n# extra\n")


def test_the_summary_compares_configurations_on_the_bugs_all_of_them_attempted() -> None:
    def row(bug: str, config: str, fixed: bool) -> dict[str, object]:
        return {
            "bug": bug,
            "config": config,
            "fixed": fixed,
            "clean": fixed,
            "exact": False,
            "seconds": 10.0,
            "samples": None if config == "loop" else 4,
            "tokens": 100,
            "said_done_failing": not fixed,
            "commit": "abc1234",
        }

    rows = [
        row("a", "loop", True),
        row("b", "loop", False),
        row("a", "repair-5", True),
        row("b", "repair-5", True),
        row("c", "repair-5", True),
    ]  # c has no loop row: left out of the comparison
    summary = bench.summarise(rows, ["loop", "repair-5"])
    assert summary["loop"]["bugs"] == summary["repair-5"]["bugs"] == 2
    assert summary["repair-5"]["overfit"] == 0
    assert summary["repair-5"]["fixed"] == 2 and summary["repair-5"]["times_loop"] == 2.0
    assert summary["loop"]["said_done_failing"] == 1 and summary["loop"]["mean_samples"] is None
    assert summary["loop"]["commits"] == ["abc1234"]


def test_the_unusable_share_counts_kept_lines_and_also_reports_them_apart() -> None:
    rows: list[dict[str, object]] = [
        {"bug": "a", "samples": 10, "unusable": 4, "unusable_by": {"kept_line": 3, "not_json": 1}},
        {"bug": "b", "samples": 10, "unusable": 1, "unusable_by": {"does_not_parse": 1}},
        {"bug": "c", "samples": None},  # a templates row: no samples, not counted
    ]
    for row in rows:
        row.update(config="model-10", fixed=False, clean=False, exact=False, seconds=1.0, tokens=0)
        row.update(said_done_failing=False, commit="c")
    summary = bench.summarise(rows, ["model-10"])["model-10"]
    assert (summary["unusable_pct"], summary["kept_line_pct"]) == (25.0, 15.0)


def test_configuration_names_say_samples_and_templates() -> None:
    assert bench.repair_settings("repair-10") == (10, bench.TEMPLATES, None)
    assert bench.repair_settings("model-5") == (5, 0, None)
    assert bench.repair_settings("templates") == (0, bench.TEMPLATES, None)
    assert bench.repair_settings("model-5@line,diff") == (5, 0, "line,diff")
    with pytest.raises(SystemExit, match="unknown form 'patch'"):
        bench.repair_settings("repair-5@patch")
    with pytest.raises(SystemExit, match="unknown configuration 'repair-x'"):
        bench.repair_settings("repair-x")


def test_agent_configuration_names_say_the_repair_tool_and_the_voting_level() -> None:
    assert bench.loop_settings("loop") == (False, "auto")
    assert bench.loop_settings("loop@none") == (False, "none")
    assert bench.loop_settings("agent@medium") == (True, "medium")
    assert bench.loop_settings("repair-10") is None
    with pytest.raises(SystemExit, match="unknown voting level 'often' in configuration 'loop@often'"):
        bench.loop_settings("loop@often")


def test_every_attempt_has_a_home_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """One home for the whole run let three failed agent runs switch on voting in the next ones."""
    import os

    monkeypatch.setenv("CHRYSALIS_HOME", "unchanged-by-the-test")  # restored after the test
    made: list[Path] = []
    for _ in range(2):
        with homes.fresh_home():
            made.append(Path(os.environ["CHRYSALIS_HOME"]))
            assert made[-1].is_dir()
    assert made[0] != made[1]
    assert not made[0].exists() and not made[1].exists()
    assert os.environ["CHRYSALIS_HOME"] == "unchanged-by-the-test"


def test_each_set_is_summarised_apart_and_a_fix_the_reference_disagrees_with_is_overfit(tmp_path: Path) -> None:
    rows = [
        {"set": "dev", "bug": "a", "config": "templates", "fixed": True, "overfit": False},
        {"bug": "b", "config": "templates", "fixed": False, "overfit": True},  # a row from before the sets: dev
        {"set": "heldout", "bug": "c", "config": "templates", "fixed": False, "overfit": True},
    ]
    for row in rows:
        row.update(clean=False, exact=False, seconds=1.0, samples=None, tokens=0, said_done_failing=False, commit="c")
    summary = bench.summarise_sets(rows, ["templates"])
    assert (summary["dev"]["templates"]["fixed"], summary["dev"]["templates"]["overfit"]) == (1, 1)
    assert (summary["heldout"]["templates"]["bugs"], summary["heldout"]["templates"]["overfit"]) == (1, 1)
    has_cycle = bugs_module.load("has_cycle")
    wrong = has_cycle.correct.replace("colour[node] = BLACK", "colour[node] = node")  # passes the bench's tests
    assert not bench.differential_check(has_cycle.folder, wrong, trials=100).agrees
    assert bench.differential_check(has_cycle.folder, has_cycle.correct, trials=100).agrees
