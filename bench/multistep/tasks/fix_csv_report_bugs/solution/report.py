"""Totals and a small text report for CSV data."""
from csvparse import parse_rows


def column_total(rows, column):
    """Sum of a numeric column."""
    total = 0
    for row in rows:
        total += float(row[column])
    return total


def render(text, column):
    rows = parse_rows(text)
    return f"{len(rows)} rows, total {column} = {column_total(rows, column):.2f}"
