import pytest
from day_count import Day, days_between, days_in_month, is_leap


def test_leap_years():
    assert is_leap(2024)
    assert not is_leap(2023)
    assert not is_leap(1900)
    assert is_leap(2000)


def test_days_in_february():
    assert days_in_month(2024, 2) == 29
    assert days_in_month(2100, 2) == 28
    assert days_in_month(2400, 2) == 29


def test_day_of_year():
    assert Day(2023, 12, 31).day_of_year() == 365
    assert Day(2000, 3, 1).day_of_year() == 61


def test_days_between():
    assert days_between("2024-01-01", "2024-03-01") == 60
    assert days_between("2024-03-01", "2024-01-01") == -60
    assert days_between("1999-12-31", "2000-12-31") == 366


def test_weekday():
    assert Day(1, 1, 1).weekday() == "Monday"
    assert Day(2000, 2, 29).weekday() == "Tuesday"
    assert Day.parse("2024-07-04").weekday() == "Thursday"


def test_invalid_dates():
    with pytest.raises(ValueError, match="no such date"):
        Day(2023, 2, 29)
    with pytest.raises(ValueError, match="no such date"):
        Day(2024, 13, 1)


def test_round_trip_text_and_order():
    assert str(Day.parse("0999-01-09")) == "0999-01-09"
    assert Day(2024, 1, 31) < Day(2024, 2, 1)
