import pytest
from cheapest_route import RoadMap


@pytest.fixture
def roads():
    rm = RoadMap()
    rm.add_road("A", "B", 7)
    rm.add_road("A", "C", 9)
    rm.add_road("A", "F", 14)
    rm.add_road("B", "C", 10)
    rm.add_road("B", "D", 15)
    rm.add_road("C", "D", 11)
    rm.add_road("C", "F", 2)
    rm.add_road("D", "E", 6)
    rm.add_road("F", "E", 9)
    return rm


def test_costs_from(roads):
    best, _ = roads.costs_from("A")
    assert best == {"A": 0, "B": 7, "C": 9, "D": 20, "E": 20, "F": 11}


def test_route(roads):
    assert roads.route("A", "E") == (20, ["A", "C", "F", "E"])


def test_route_to_self(roads):
    assert roads.route("C", "C") == (0, ["C"])


def test_unreachable(roads):
    assert roads.route("E", "A") is None


def test_two_way_and_parallel_roads():
    rm = RoadMap()
    rm.add_road("x", "y", 5, two_way=True)
    rm.add_road("y", "x", 3)
    assert rm.route("y", "x") == (3, ["y", "x"])
    assert rm.route("x", "y") == (5, ["x", "y"])


def test_reachable_within(roads):
    assert roads.reachable_within("A", 10) == ["A", "B", "C"]


def test_negative_cost_rejected():
    with pytest.raises(ValueError, match="negative cost"):
        RoadMap().add_road("a", "b", -1)
