import pytest
from critical_path import Project, Task

HOUSE = [
    Task("foundation", 5),
    Task("walls", 10, ("foundation",)),
    Task("plumbing", 4, ("foundation",)),
    Task("roof", 6, ("walls",)),
    Task("wiring", 3, ("walls",)),
    Task("paint", 2, ("roof", "wiring", "plumbing")),
]


def test_order():
    assert Project(HOUSE).order() == ["foundation", "plumbing", "walls", "roof", "wiring", "paint"]


def test_earliest_times():
    times = Project(HOUSE).earliest()
    assert times["walls"] == (5, 15)
    assert times["paint"] == (21, 23)


def test_length():
    assert Project(HOUSE).length() == 23
    assert Project([]).length() == 0


def test_slack_and_critical_path():
    project = Project(HOUSE)
    assert project.slack()["plumbing"] == 12
    assert project.slack()["wiring"] == 3
    assert project.critical_tasks() == ["foundation", "walls", "roof", "paint"]


def test_independent_tasks_run_in_parallel():
    project = Project([Task("a", 3), Task("b", 7)])
    assert project.length() == 7
    assert project.slack() == {"a": 4, "b": 0}


def test_unknown_dependency():
    with pytest.raises(ValueError, match="unknown tasks"):
        Project([Task("a", 1, ("ghost",))])


def test_cycle():
    with pytest.raises(ValueError, match="cycle"):
        Project([Task("a", 1, ("b",)), Task("b", 1, ("a",))]).order()
