from datetime import date

from month_steps import add_months, billing_dates, end_of_month, monthly, months_between, quarter_of


def test_add_months_simple():
    assert add_months(date(2024, 1, 15), 1) == date(2024, 2, 15)
    assert add_months(date(2024, 11, 30), 3) == date(2025, 2, 28)
    assert add_months(date(2024, 3, 10), -3) == date(2023, 12, 10)


def test_add_months_clamps_to_month_end():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)


def test_months_between():
    assert months_between(date(2024, 1, 31), date(2024, 2, 29)) == 1
    assert months_between(date(2024, 1, 15), date(2024, 3, 14)) == 1
    assert months_between(date(2024, 3, 14), date(2024, 1, 15)) == -1


def test_monthly_does_not_drift():
    days = list(monthly(date(2024, 1, 31), 4))
    assert days == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 30)]


def test_quarterly():
    assert list(monthly(date(2024, 2, 1), 3, every=3)) == [date(2024, 2, 1), date(2024, 5, 1), date(2024, 8, 1)]
    assert list(monthly(date(2024, 2, 1), 0)) == []


def test_billing_dates():
    assert billing_dates(date(2024, 1, 10), date(2024, 3, 10)) == [
        date(2024, 1, 10),
        date(2024, 2, 10),
        date(2024, 3, 10),
    ]
    assert billing_dates(date(2024, 1, 10), date(2024, 3, 9)) == [date(2024, 1, 10), date(2024, 2, 10)]


def test_end_of_month_and_quarter():
    assert end_of_month(date(2100, 2, 3)) == date(2100, 2, 28)
    assert quarter_of(date(2024, 9, 30)) == (2024, 3)
