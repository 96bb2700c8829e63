from datetime import date

from business_days import (
    add_business_days,
    business_days_between,
    is_business_day,
    month_end_business_day,
    roll_forward,
)

FRIDAY = date(2024, 3, 1)
CHRISTMAS = date(2024, 12, 25)


def test_weekends_are_not_business_days():
    assert is_business_day(FRIDAY)
    assert not is_business_day(date(2024, 3, 2))
    assert not is_business_day(CHRISTMAS, {CHRISTMAS})


def test_add_skips_the_weekend():
    assert add_business_days(FRIDAY, 1) == date(2024, 3, 4)
    assert add_business_days(FRIDAY, 5) == date(2024, 3, 8)


def test_add_backwards_and_zero():
    assert add_business_days(date(2024, 3, 4), -1) == FRIDAY
    assert add_business_days(FRIDAY, 0) == FRIDAY


def test_add_skips_holidays():
    assert add_business_days(date(2024, 12, 24), 1, {CHRISTMAS}) == date(2024, 12, 26)


def test_roll_forward():
    assert roll_forward(date(2024, 3, 2)) == date(2024, 3, 4)
    assert roll_forward(FRIDAY) == FRIDAY


def test_between():
    assert business_days_between(FRIDAY, date(2024, 3, 11)) == 6
    assert business_days_between(date(2024, 3, 11), FRIDAY) == -6
    assert business_days_between(date(2024, 12, 23), date(2024, 12, 30), {CHRISTMAS}) == 4


def test_month_end():
    assert month_end_business_day(2024, 3) == date(2024, 3, 29)
    assert month_end_business_day(2024, 12, {date(2024, 12, 31)}) == date(2024, 12, 30)
