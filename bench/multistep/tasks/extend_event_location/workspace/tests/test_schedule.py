import pytest

from events import Event
from schedule import Schedule, describe


def test_json_round_trip():
    s = Schedule()
    s.add(Event("lunch", "2024-05-02", "12:00", "13:00"))
    assert Schedule.from_json(s.to_json()).events == s.events


def test_clash():
    s = Schedule()
    s.add(Event("a", "2024-05-02", "12:00", "13:00"))
    with pytest.raises(ValueError):
        s.add(Event("b", "2024-05-02", "12:30", "12:45"))


def test_describe():
    assert describe(Event("gym", "2024-05-03", "18:00", "19:00")) == "2024-05-03 18:00-19:00 gym"
