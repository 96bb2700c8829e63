"""Parsing and formatting of ISO dates (YYYY-MM-DD)."""
from datetime import date


def parse_date(text):
    """'2024-03-05' -> date(2024, 3, 5)"""
    year, month, day = text.strip().split("-")
    return date(int(year), int(month), int(day))


def format_date(value):
    """date(2024, 3, 5) -> '2024-03-05'"""
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
