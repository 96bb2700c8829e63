"""Fault localisation: the failing tests' spectrum, tracebacks, and the imports when nothing else points."""

from __future__ import annotations

from pathlib import Path

from chrysalis.repair.localise import is_test_file, localise
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
