import pytest

from task_scheduler import CycleError, Task, critical_path, earliest_schedule, makespan, topological_order

BUILD = [
    Task("compile", 4, ("fetch",)),
    Task("fetch", 2),
    Task("docs", 3, ("fetch",)),
    Task("test", 5, ("compile",)),
    Task("package", 1, ("test", "docs")),
]


def test_topological_order_is_deterministic():
    assert topological_order(BUILD) == ["fetch", "compile", "docs", "test", "package"]


def test_earliest_schedule():
    times = earliest_schedule(BUILD)
    assert times["docs"] == (2, 5)
    assert times["package"] == (11, 12)


def test_makespan():
    assert makespan(BUILD) == 12
    assert makespan([]) == 0


def test_makespan_of_independent_tasks():
    assert makespan([Task("a", 3), Task("b", 7)]) == 7


def test_critical_path():
    assert critical_path(BUILD) == ["fetch", "compile", "test", "package"]


def test_cycle_is_reported():
    with pytest.raises(CycleError, match="a, b"):
        topological_order([Task("a", 1, ("b",)), Task("b", 1, ("a",)), Task("c", 1)])


def test_unknown_dependency():
    with pytest.raises(KeyError, match="unknown"):
        topological_order([Task("a", 1, ("ghost",))])
