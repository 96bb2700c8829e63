from datetime import date

from ranges import date_range, describe


def test_range_includes_end():
    days = date_range(date(2024, 1, 30), date(2024, 2, 1))
    assert days == [date(2024, 1, 30), date(2024, 1, 31), date(2024, 2, 1)]


def test_describe():
    assert describe("2024-01-10..2024-01-12") == "2024-01-10 to 2024-01-12 (3 days)"
