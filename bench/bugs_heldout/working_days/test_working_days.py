from datetime import date

from working_days import BusinessCalendar, as_dates, due_date

XMAS = as_dates(["2024-12-25", "2024-12-26", "2025-01-01"])


def test_weekdays_and_weekends():
    cal = BusinessCalendar()
    assert cal.is_business_day(date(2024, 6, 7))
    assert not cal.is_business_day(date(2024, 6, 8))


def test_holiday_is_not_a_business_day():
    assert not BusinessCalendar(XMAS).is_business_day(date(2024, 12, 25))


def test_add_skips_weekend():
    assert BusinessCalendar().add(date(2024, 6, 7), 1) == date(2024, 6, 10)
    assert BusinessCalendar().add(date(2024, 6, 10), -1) == date(2024, 6, 7)
    assert BusinessCalendar().add(date(2024, 6, 8), 0) == date(2024, 6, 8)


def test_add_skips_holidays():
    assert BusinessCalendar(XMAS).add(date(2024, 12, 24), 3) == date(2024, 12, 31)


def test_between():
    cal = BusinessCalendar(XMAS)
    assert cal.between(date(2024, 12, 23), date(2025, 1, 6)) == 7
    assert cal.between(date(2025, 1, 6), date(2024, 12, 23)) == -7
    assert cal.between(date(2024, 6, 8), date(2024, 6, 8)) == 0


def test_holiday_on_weekend_counted_once():
    cal = BusinessCalendar([date(2024, 6, 8)])
    assert cal.between(date(2024, 6, 3), date(2024, 6, 10)) == 5


def test_due_date_from_saturday():
    assert due_date(date(2024, 12, 21), 2, XMAS) == date(2024, 12, 27)


def test_custom_weekend():
    cal = BusinessCalendar(weekend=(4, 5))
    assert cal.add(date(2024, 6, 6), 1) == date(2024, 6, 9)
