import json
import os
import sys

sys.path.insert(0, os.getcwd())

import events
import schedule

E = events.Event


def test_location_defaults_to_empty():
    e = E("review", "2024-06-10", "14:00", "15:00")
    assert e.location == ""
    assert E("review", "2024-06-10", "14:00", "15:00", location="Room 4").location == "Room 4"


def test_to_dict_includes_location():
    e = E("review", "2024-06-10", "14:00", "15:00", location="Room 4")
    assert e.to_dict() == {
        "name": "review", "day": "2024-06-10", "start": "14:00", "end": "15:00", "location": "Room 4",
    }


def test_from_dict_reads_location_and_accepts_old_dicts():
    d = {"name": "x", "day": "2024-06-11", "start": "08:00", "end": "09:00", "location": "Lab"}
    assert E.from_dict(d).location == "Lab"
    old = {"name": "x", "day": "2024-06-11", "start": "08:00", "end": "09:00"}
    assert E.from_dict(old) == E("x", "2024-06-11", "08:00", "09:00")


def test_schedule_json_keeps_location():
    s = schedule.Schedule()
    s.add(E("talk", "2024-06-12", "10:00", "11:00", location="Hall B"))
    s.add(E("coffee", "2024-06-12", "11:00", "11:30"))
    again = schedule.Schedule.from_json(s.to_json())
    assert [e.location for e in again.events] == ["Hall B", ""]
    assert json.loads(s.to_json())[0]["location"] == "Hall B"


def test_describe_with_and_without_location():
    e = E("talk", "2024-06-12", "10:00", "11:00", location="Hall B")
    assert schedule.describe(e) == "2024-06-12 10:00-11:00 talk @ Hall B"
    plain = E("talk", "2024-06-12", "10:00", "11:00")
    assert schedule.describe(plain) == "2024-06-12 10:00-11:00 talk"
