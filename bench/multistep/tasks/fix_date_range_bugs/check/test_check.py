import os
import sys

sys.path.insert(0, os.getcwd())
from datetime import date

import pytest

import dates
import ranges


def test_parse_date_month_day_order():
    assert dates.parse_date("2023-11-02") == date(2023, 11, 2)
    assert dates.parse_date(" 2024-02-29 ") == date(2024, 2, 29)
    assert dates.parse_date("2020-01-12") == date(2020, 1, 12)


def test_single_day_range():
    d = date(2022, 6, 15)
    assert ranges.date_range(d, d) == [d]


def test_range_across_leap_day():
    got = ranges.parse_range("2024-02-27..2024-03-01")
    assert got == [date(2024, 2, 27), date(2024, 2, 28), date(2024, 2, 29), date(2024, 3, 1)]


def test_range_end_before_start_still_raises():
    with pytest.raises(ValueError):
        ranges.date_range(date(2024, 5, 2), date(2024, 5, 1))


def test_describe_week():
    assert ranges.describe("2023-12-28..2024-01-03") == "2023-12-28 to 2024-01-03 (7 days)"
