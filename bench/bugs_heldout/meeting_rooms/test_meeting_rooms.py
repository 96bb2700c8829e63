import pytest
from meeting_rooms import Meeting, allocate, busiest_moment, rooms_needed, timetable

DAY = [
    Meeting(900, 1000, "standup"),
    Meeting(930, 1100, "design"),
    Meeting(1000, 1030, "1:1"),
    Meeting(1100, 1200, "review"),
    Meeting(1015, 1045, "interview"),
]


def test_allocate():
    assert allocate(DAY) == {"standup": 0, "design": 1, "1:1": 0, "interview": 2, "review": 0}


def test_back_to_back_meetings_share_a_room():
    assert rooms_needed([Meeting(9, 10, "a"), Meeting(10, 11, "b"), Meeting(11, 12, "c")]) == 1


def test_rooms_needed():
    assert rooms_needed(DAY) == 3
    assert rooms_needed([]) == 0


def test_timetable():
    assert timetable(DAY) == {0: ["standup", "1:1", "review"], 1: ["design"], 2: ["interview"]}


def test_busiest_moment():
    assert busiest_moment(DAY) == (1015, 3)
    assert busiest_moment([]) == (None, 0)


def test_invalid_meetings():
    with pytest.raises(ValueError, match="ends before it starts"):
        Meeting(10, 10, "empty")
    with pytest.raises(ValueError, match="unique"):
        allocate([Meeting(1, 2, "x"), Meeting(3, 4, "x")])
