"""Fault localisation: the failing tests' spectrum, tracebacks, and the imports when nothing else points."""

from __future__ import annotations

from pathlib import Path

from chrysalis.repair.localise import PLUGIN_FILE, is_test_file, localise
from chrysalis.tools.sandbox import SandboxOptions

PYTEST = "python -m pytest -q -p no:cacheprovider"


def test_the_spectrum_ranks_the_function_only_failing_tests_run_first(project: Path) -> None:
    before = sorted(p.name for p in project.rglob("*"))
    found = localise(project, PYTEST, SandboxOptions(), 60)
    assert found.method == "spectrum"
    assert set(found.run.failed) == {"tests/test_stats.py::test_mean", "tests/test_stats.py::test_mean_one"}
    assert len(found.run.passed) == 2
    top = found.suspects[0]
    assert (top.path, top.function, top.start, top.end) == ("stats.py", "mean", 1, 6) and top.score == 1.0
    assert all(s.function != "biggest" for s in found.suspects)  # only passing tests run it
    assert sorted(p.name for p in project.rglob("*")) == before  # no coverage data left in the project


def test_a_traceback_through_the_code_points_at_its_line(project: Path) -> None:
    (project / "stats.py").write_text("def mean(values):\n    return sum(values) / len(values) + undefined\n")
    (project / "tests" / "test_stats.py").write_text(
        "from stats import mean\n\n\ndef test_mean():\n    assert mean([2]) == 2\n"
    )
    found = localise(project, PYTEST, SandboxOptions(), 60)
    top = found.suspects[0]
    assert top.function == "mean" and top.lines == (2,) and top.score > 1.0  # spectrum plus the traceback


def test_without_pytest_the_imports_of_the_failing_tests_are_the_suspects(project: Path) -> None:
    (project / "check.py").write_text("import sys\nfrom stats import mean\nsys.exit(0 if mean([2, 4]) == 3 else 1)\n")
    found = localise(project, "python check.py", SandboxOptions(), 60)
    assert found.run.exit_code == 1 and found.method == "none" and found.suspects == ()


def test_test_files_are_never_suspects() -> None:
    assert is_test_file("tests/helpers.py") and is_test_file("test_x.py") and is_test_file("pkg/conftest.py")
    assert not is_test_file("src/stats.py") and not is_test_file("contest.py")


def test_frames_outside_the_workspace_are_never_suspects(project: Path) -> None:
    (project / "stats.py").write_text(
        "import json\n\n\ndef mean(text):\n    values = json.loads(text)\n    return sum(values) / len(values)\n"
    )
    (project / "tests" / "test_stats.py").write_text(
        "from stats import mean\n\n\ndef test_mean():\n    assert mean('[2, 4') == 3\n"
    )
    found = localise(project, PYTEST, SandboxOptions(), 60)
    assert "decoder.py" in found.run.output  # the traceback goes through the standard library
    assert [s.path for s in found.suspects] == ["stats.py"]


LOOPING = '''def collatz_steps(n):
    """How many steps the Collatz map takes from n to 1."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else n * 3 + 1
        steps += 1
    return steps


def halvings(n):
    """How many times n can be halved before it is odd."""
    count = 0
    while n % 2 == 0:
        n = n // 1
        count += 1
    return count
'''


def test_a_test_stuck_in_a_loop_fails_where_it_is_stuck_and_the_rest_still_run(project: Path) -> None:
    (project / "stats.py").write_text(LOOPING)
    stuck = "\n\n".join(
        f"def test_halvings_{n}():\n    assert halvings({n}) == {k}" for n, k in ((8, 3), (4, 2), (2, 1))
    )
    odd = "def test_halvings_odd():\n    assert halvings(7) == 0"
    passing = "def test_collatz():\n    assert collatz_steps(6) == 8"
    last = "def test_last():\n    pass"
    tests = "\n\n\n".join(["from stats import collatz_steps, halvings", passing, odd, stuck, last])
    (project / "tests" / "test_stats.py").write_text(tests + "\n")
    found = localise(project, PYTEST, SandboxOptions(), 30)  # 5 s a test
    assert not found.run.timed_out  # the run ended by itself: the stuck tests failed one by one
    assert set(found.run.passed) == {"tests/test_stats.py::test_collatz", "tests/test_stats.py::test_halvings_odd"}
    assert len(found.run.failed) == 3  # the plugin's MAX_STUCK: then the session stopped, test_last never ran
    assert "TestRanTooLong: the test ran longer than 5 s" in found.run.output
    top = found.suspects[0]
    assert (top.path, top.function) == ("stats.py", "halvings") and set(top.lines) <= {13, 14, 15}
    assert all(s.path != PLUGIN_FILE for s in found.suspects)  # the plugin's own frame is never a suspect
