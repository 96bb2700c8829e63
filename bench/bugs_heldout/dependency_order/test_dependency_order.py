import pytest
from dependency_order import CycleError, DependencyGraph


def build():
    return DependencyGraph(
        {
            "app": ["lib", "config"],
            "lib": ["core"],
            "config": ["core"],
            "tests": ["app"],
        }
    )


def test_full_order():
    assert build().order() == ["core", "config", "lib", "app", "tests"]


def test_order_for_targets():
    assert build().order(targets=["lib"]) == ["core", "lib"]
    assert build().order(targets=["config", "lib"]) == ["core", "config", "lib"]


def test_independent_items_alphabetical():
    graph = DependencyGraph()
    graph.require("b")
    graph.require("a")
    assert graph.order() == ["a", "b"]


def test_cycle_is_reported():
    graph = build()
    graph.require("core", "tests")
    with pytest.raises(CycleError, match="dependency cycle") as info:
        graph.order()
    assert info.value.cycle == ["app", "config", "core", "tests", "app"]


def test_find_cycle():
    assert build().find_cycle() is None
    graph = DependencyGraph({"x": ["x"]})
    assert graph.find_cycle() == ["x", "x"]


def test_depth():
    graph = build()
    assert graph.depth("core") == 0
    assert graph.depth("tests") == 3
