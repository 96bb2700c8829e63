"""bench/bugs/*/differential.py: every repair bug has a differential trial that catches its bug and known overfits.

Each trial runs in this process on the reference and on a variant program built from its text; a
variant that hangs is cut by an alarm (the buggy dijkstra never ends). The set-wide check with
subprocesses and timeouts is bench/differential.py's; these tests keep the dev set's trials honest.
"""

from __future__ import annotations

import importlib.util
import random
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest

from tests.helpers import PYTEST_INI, load_bench_module

bugs_module = load_bench_module("repair_bugs")
BUGS = bugs_module.load_all()
TRIALS = 500

Trial = Callable[[ModuleType, random.Random], Any]


class TrialTimeout(Exception):
    """A trial ran past its alarm: the variant loops."""


def _module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trial(bug_name: str) -> Trial:
    trial: Trial = _module(f"dev_differential_{bug_name}", bugs_module.BUGS / bug_name / "differential.py").trial
    return trial


def _program(tmp_path: Path, name: str, source: str) -> ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return _module(f"dev_differential_{tmp_path.name}_{name}", path)


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        raise TrialTimeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _outcome(trial: Trial, module: ModuleType, seed: int) -> tuple[str, Any]:
    """What the checker compares: the trial's value, or the name of the exception it raised."""
    try:
        with _alarm(1.0):
            return ("value", trial(module, random.Random(seed)))
    except TrialTimeout:
        return ("timeout", None)
    except Exception as exc:
        return ("raises", type(exc).__name__)


def _disagreeing_seeds(bug_name: str, reference: ModuleType, variant: ModuleType, stop_at: int = TRIALS) -> list[int]:
    trial = _trial(bug_name)
    found = []
    for seed in range(TRIALS):
        if _outcome(trial, reference, seed) != _outcome(trial, variant, seed):
            found.append(seed)
            if len(found) == stop_at:
                break
    return found


def _fixed_with(bug: Any, line: str) -> str:
    """The buggy program with the bug's line replaced by ``line`` (by number: its text may occur twice)."""
    lines = bug.buggy_text().splitlines(keepends=True)
    lines[bug.line - 1] = line + "\n"
    return "".join(lines)


def _passes_the_tests(bug: Any, source: str, root: Path) -> bool:
    workspace = bug.materialise(root)
    (workspace / bug.program).write_text(source, encoding="utf-8")
    (workspace / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")  # no plugins from this venv: 10x faster
    passes: bool = bugs_module.suite_passes(workspace, timeout=120)
    return passes


def _plain(value: object) -> bool:
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(_plain(key) and _plain(item) for key, item in value.items())
    return False


def test_every_bug_has_a_differential_trial() -> None:
    missing = [bug.name for bug in BUGS if not (bugs_module.BUGS / bug.name / "differential.py").is_file()]
    assert missing == []
    assert len(BUGS) >= 40


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_the_reference_agrees_with_itself_on_plain_values(bug: Any, tmp_path: Path) -> None:
    trial = _trial(bug.name)
    reference = _program(tmp_path, bug.name, bug.correct)
    for seed in range(50):
        first = trial(reference, random.Random(seed))
        assert _plain(first), (seed, first)
        assert trial(reference, random.Random(seed)) == first


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_the_buggy_program_disagrees_with_the_reference(bug: Any, tmp_path: Path) -> None:
    reference = _program(tmp_path, bug.name, bug.correct)
    buggy = _program(tmp_path, f"{bug.name}_buggy", bug.buggy_text())
    assert _disagreeing_seeds(bug.name, reference, buggy, stop_at=1)


def test_has_cycle_marking_a_finished_node_with_itself_is_an_overfit(tmp_path: Path) -> None:
    """The issue's fix `colour[node] = node` passes the tests, but node 1 then stays GREY: a false cycle."""
    bug = bugs_module.load("has_cycle")
    fix = _fixed_with(bug, "        colour[node] = node")
    assert _passes_the_tests(bug, fix, tmp_path / "workspace")
    reference = _program(tmp_path, "has_cycle", bug.correct)
    overfit = _program(tmp_path, "has_cycle_overfit", fix)
    graph = {1: [2], 2: [], 3: [1]}
    assert reference.has_cycle(graph) is False and overfit.has_cycle(graph) is True
    assert len(_disagreeing_seeds("has_cycle", reference, overfit)) >= 25


def test_find_peak_any_peak_is_right_but_a_search_that_loses_the_peak_is_not(tmp_path: Path) -> None:
    """A scan returning another peak agrees; the recorded fix `lo = lo + 1` passes the tests yet loses the peak."""
    bug = bugs_module.load("find_peak")
    reference = _program(tmp_path, "find_peak", bug.correct)
    first_peak = _program(
        tmp_path,
        "find_peak_scan",
        "def find_peak(xs):\n"
        "    for i in range(len(xs)):\n"
        "        if (i == 0 or xs[i] >= xs[i - 1]) and (i == len(xs) - 1 or xs[i] >= xs[i + 1]):\n"
        "            return i\n",
    )
    assert (reference.find_peak([3, 1, 2]), first_peak.find_peak([3, 1, 2])) == (2, 0)
    assert _disagreeing_seeds("find_peak", reference, first_peak) == []
    fix = _fixed_with(bug, "            lo = lo + 1")
    assert _passes_the_tests(bug, fix, tmp_path / "workspace")
    overfit = _program(tmp_path, "find_peak_overfit", fix)
    assert overfit.find_peak([1, 0, 0, 0, 1, 0, 0, 0]) == 1  # not a peak: 0 < 1 on its left
    assert len(_disagreeing_seeds("find_peak", reference, overfit)) >= 25


@pytest.mark.parametrize(
    ("name", "source"),
    [
        (
            "topo_sort",  # Kahn's algorithm: another order, every edge still forward
            "def topo_sort(graph):\n"
            "    indegree = {u: 0 for u in graph}\n"
            "    for u in graph:\n"
            "        for v in graph[u]:\n"
            "            indegree[v] += 1\n"
            "    ready = sorted(u for u in graph if indegree[u] == 0)\n"
            "    order = []\n"
            "    while ready:\n"
            "        u = ready.pop()\n"
            "        order.append(u)\n"
            "        for v in graph[u]:\n"
            "            indegree[v] -= 1\n"
            "            if indegree[v] == 0:\n"
            "                ready.append(v)\n"
            "    return order\n",
        ),
        (
            "binary_search",  # the last copy of a duplicated target, where the reference may find another
            "import bisect\n\n\ndef binary_search(xs, target):\n"
            "    i = bisect.bisect_right(xs, target) - 1\n"
            "    return i if i >= 0 and xs[i] == target else -1\n",
        ),
        (
            "pair_with_sum",  # the first pair in index order, where the reference may find another
            "def pair_with_sum(xs, total):\n"
            "    pairs = [(i, j) for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[i] + xs[j] == total]\n"
            "    return pairs[0] if pairs else None\n",
        ),
    ],
)
def test_another_right_answer_agrees_where_the_contract_allows_several(name: str, source: str, tmp_path: Path) -> None:
    bug = bugs_module.load(name)
    reference = _program(tmp_path, name, bug.correct)
    alternative = _program(tmp_path, f"{name}_alternative", source)
    assert _disagreeing_seeds(name, reference, alternative) == []
