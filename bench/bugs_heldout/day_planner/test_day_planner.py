import pytest
from day_planner import DayPlanner, to_clock, to_minutes


@pytest.fixture
def planner():
    p = DayPlanner()
    p.book("09:30", "10:00")
    p.book("09:45", "11:00")
    p.book("11:00", "11:30")
    p.book("13:00", "14:00")
    p.book("13:15", "13:45")
    return p


def test_clock_conversion():
    assert to_minutes("08:05") == 485
    assert to_clock(485) == "08:05"
    with pytest.raises(ValueError, match="bad time"):
        to_minutes("10:75")


def test_busy_merges_overlapping_and_touching(planner):
    assert [str(span) for span in planner.busy()] == ["09:30-11:30", "13:00-14:00"]


def test_free(planner):
    assert planner.free() == ["09:00-09:30", "11:30-13:00", "14:00-17:00"]


def test_first_slot(planner):
    assert planner.first_slot(30) == "09:00"
    assert planner.first_slot(45) == "11:30"
    assert planner.first_slot(120) == "14:00"
    assert planner.first_slot(200) is None


def test_empty_day():
    p = DayPlanner("08:00", "12:00")
    assert p.free() == ["08:00-12:00"]
    assert p.first_slot(240) == "08:00"


def test_booking_outside_hours():
    p = DayPlanner()
    p.book("07:00", "09:15")
    p.book("16:30", "18:00")
    assert p.free() == ["09:15-16:30"]
    assert p.first_slot(60) == "09:15"


def test_empty_booking_rejected():
    with pytest.raises(ValueError, match="empty booking"):
        DayPlanner().book("10:00", "10:00")
