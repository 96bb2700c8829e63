"""scripts/figures.py (`make figures`): the README's figures against the results files they come from."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "figures.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["figures"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


figures = load()

PROVENANCE = {"command": "python bench/queue.py", "commit": "abc1234", "date": "2026-11-27T10:00:00+00:00"}
README = """# Project

Intro line.

The queue runs **41.6 runs/s** with one
worker, and p99 is 12 ms.
"""
TABLE = """
["bench/results/queue.json"]
rerun = "python bench/queue.py"
"runs **{} runs/s** with one worker" = "throughput[0].runs_per_second"
"p99 is {} ms" = "latency.p99_ms"
"""


def project(tmp_path: Path, results: dict[str, Any] | None, readme: str = README, table: str = TABLE) -> Path:
    (tmp_path / "bench" / "results").mkdir(parents=True)
    (tmp_path / "README.md").write_text(readme)
    (tmp_path / "bench" / "figures.toml").write_text(table)
    if results is not None:
        (tmp_path / "bench" / "results" / "queue.json").write_text(json.dumps(results))
    return tmp_path


def run(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = figures.main(["--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def test_figures_that_round_to_the_file_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = {"throughput": [{"runs_per_second": 41.63}], "latency": {"p99_ms": 11.6}, **PROVENANCE}
    code, out, err = run(project(tmp_path, results), capsys)
    assert (code, err) == (0, "")
    assert "ok: 2 values compared" in out


def test_provenance_may_sit_under_its_own_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = {"throughput": [{"runs_per_second": 41.6}], "latency": {"p99_ms": 12}, "provenance": PROVENANCE}
    assert run(project(tmp_path, results), capsys)[0] == 0


def test_a_figure_beyond_its_rounding_fails_naming_line_figure_file_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = {"throughput": [{"runs_per_second": 41.66}], "latency": {"p99_ms": 12.4}, **PROVENANCE}
    code, _, err = run(project(tmp_path, results), capsys)
    assert code == 1
    assert err.splitlines() == [
        "README.md:5: 41.6 ('runs **{} runs/s** with one worker'): bench/results/queue.json: "
        "throughput[0].runs_per_second is 41.66, which does not round to 41.6"
    ]


def test_a_missing_results_file_fails_and_names_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(project(tmp_path, None), capsys)
    assert code == 1
    assert "README.md:5: 41.6 " in err
    assert "bench/results/queue.json is missing: re-run it (written by: python bench/queue.py)" in err
    assert "README.md:6: 12 " in err


def test_results_without_provenance_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = {"throughput": [{"runs_per_second": 41.6}], "latency": {"p99_ms": 12}, "date": "2026-11-01"}
    code, _, err = run(project(tmp_path, results), capsys)
    assert code == 1
    assert "bench/results/queue.json has no provenance (no command, commit)" in err
    assert "not re-measured since DATE" in err  # the other way to pass, named in the message


def test_a_figure_the_readme_says_is_not_re_measured_is_listed_but_still_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = README.replace("12 ms.", "12 ms (not re-measured\nsince 2026-11-01).")
    results = {"throughput": [{"runs_per_second": 41.6}], "latency": {"p99_ms": 12}}
    code, out, _ = run(project(tmp_path, results, readme), capsys)
    assert code == 0
    assert "not vouched for: bench/results/queue.json has no provenance (no command, commit, date)" in out
    assert "README lines 5, 6 say 'not re-measured since'" in out
    wrong = {"throughput": [{"runs_per_second": 40.0}], "latency": {"p99_ms": 12}}
    code, _, err = run(project(tmp_path / "wrong", wrong, readme), capsys)
    assert code == 1 and "is 40, which does not round to 41.6" in err


def test_the_note_covers_its_own_paragraph_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = README.replace("Intro line.", "Intro line, not re-measured since 2026-11-01.")
    results = {"throughput": [{"runs_per_second": 41.6}], "latency": {"p99_ms": 12}}
    assert run(project(tmp_path, results, readme), capsys)[0] == 1


def test_a_phrase_the_readme_no_longer_has_or_has_twice_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = {"throughput": [{"runs_per_second": 41.6}], "latency": {"p99_ms": 12}, **PROVENANCE}
    code, _, err = run(project(tmp_path, results, README.replace("p99 is", "p99 was")), capsys)
    assert code == 1
    assert "'p99 is {} ms' (bench/results/queue.json) is not in README.md: update the phrase" in err
    table = TABLE + '"{} runs/s" = "latency.p99_ms"\n'
    code, _, err = run(project(tmp_path / "twice", results, README + "\nrate 1 runs/s\n", table), capsys)
    assert code == 1 and "matches README.md lines 5, 8: make the phrase longer" in err


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("rows[name=b].n", 4.0),
        ('["a key.with dots"]', 2.0),
        ("rows[0].n + rows[name=b].n * 10 / 4", 13.0),
        ("rows[1].n / window * 100 - 1", 49.0),
    ],
)
def test_values_are_paths_and_simple_arithmetic(expression: str, expected: float) -> None:
    data = {"rows": [{"name": "a", "n": 3}, {"name": "b", "n": 4}], "a key.with dots": 2, "window": 8}
    assert figures.evaluate(data, expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("rows[name=c].n", "0 items with name=c at rows, not one"),
        ("rows[5].n", "no item [5] at rows"),
        ("rows[0].missing", "no key 'missing' at rows.0"),
        ("rows[0].name", 'rows[0].name is "a", not a number'),
    ],
)
def test_a_path_that_breaks_says_where(expression: str, message: str) -> None:
    data = {"rows": [{"name": "a", "n": 3}]}
    with pytest.raises(figures.FigureError, match=re.escape(message)):
        figures.evaluate(data, expression)


@pytest.mark.parametrize(
    ("shown", "value", "ok"),
    [("34.2", 34.157, True), ("34.2", 34.26, False), ("1,048,575", 1048575, True), ("55", 54.2, False)],
)
def test_a_figure_agrees_within_the_rounding_it_shows(shown: str, value: float, ok: bool) -> None:
    assert figures.agrees(shown, value) is ok
