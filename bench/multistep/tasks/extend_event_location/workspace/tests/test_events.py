from events import Event


def test_round_trip():
    e = Event("standup", "2024-05-01", "09:00", "09:15")
    assert Event.from_dict(e.to_dict()) == e


def test_overlaps():
    a = Event("a", "2024-05-01", "09:00", "10:00")
    b = Event("b", "2024-05-01", "09:30", "11:00")
    c = Event("c", "2024-05-01", "10:00", "11:00")
    assert a.overlaps(b)
    assert not a.overlaps(c)
