"""Inclusive date ranges written as 'START..END'."""
from datetime import timedelta

from dates import format_date, parse_date


def date_range(start, end):
    """Every date from start to end, both included."""
    if end < start:
        raise ValueError("end is before start")
    days = (end - start).days
    return [start + timedelta(days=i) for i in range(days + 1)]


def parse_range(text):
    """'2024-03-01..2024-03-03' -> list of three dates."""
    first, last = text.split("..")
    return date_range(parse_date(first), parse_date(last))


def describe(text):
    days = parse_range(text)
    return f"{format_date(days[0])} to {format_date(days[-1])} ({len(days)} days)"
