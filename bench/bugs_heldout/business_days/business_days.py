"""Business-day arithmetic: weekends and a set of holidays are not working days."""

from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


def is_business_day(day, holidays=frozenset()):
    return day.weekday() < 5 and day not in holidays


def add_business_days(start, days, holidays=frozenset()):
    """The date ``days`` working days after ``start`` (before it when ``days`` is negative)."""
    step = ONE_DAY if days >= 0 else -ONE_DAY
    remaining = abs(days)
    current = start
    while remaining:
        current += step
        if is_business_day(current, holidays):
            remaining -= 1
    return current


def roll_forward(day, holidays=frozenset()):
    """``day`` itself if it is a working day, else the next one."""
    return day if is_business_day(day, holidays) else add_business_days(day, 1, holidays)


def business_days_between(start, end, holidays=frozenset()):
    """Working days in [start, end); negative when end comes first."""
    if end < start:
        return -business_days_between(end, start, holidays)
    full_weeks, extra = divmod((end - start).days, 7)
    count = full_weeks * 5
    for offset in range(extra):
        if (start + timedelta(days=full_weeks * 7 + offset)).weekday() < 5:
            count += 1
    return count - sum(1 for h in holidays if start <= h < end and h.weekday() < 5)


def month_end_business_day(year, month, holidays=frozenset()):
    """The last working day of the month."""
    first_of_next = date(year + month // 12, month % 12 + 1, 1)
    return add_business_days(first_of_next, -1, holidays)
