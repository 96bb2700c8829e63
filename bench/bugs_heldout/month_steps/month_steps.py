"""Monthly arithmetic on dates: adding months clamps to the month's last day, and schedules do not drift."""

import calendar
from datetime import date


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(day.day, last))


def months_between(start: date, end: date) -> int:
    """Whole months from start to end (negative when end is earlier)."""
    if end < start:
        return -months_between(end, start)
    months = (end.year - start.year) * 12 + end.month - start.month
    if add_months(start, months) > end:
        months -= 1
    return months


def monthly(start: date, count: int, every: int = 1):
    """Yield count dates, every `every` months from start, each computed from start (so the 31st stays the 31st)."""
    for i in range(count):
        yield add_months(start, i * every)


def end_of_month(day: date) -> date:
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def billing_dates(start: date, until: date):
    """Monthly billing dates from start up to and including until."""
    return list(monthly(start, months_between(start, until) + 1))


def quarter_of(day: date) -> tuple[int, int]:
    return day.year, (day.month - 1) // 3 + 1
