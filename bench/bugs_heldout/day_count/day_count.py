"""Proleptic Gregorian calendar arithmetic without the datetime module."""

from dataclasses import dataclass

MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month == 2 and is_leap(year):
        return 29
    return MONTH_DAYS[month - 1]


def days_in_year(year):
    return 366 if is_leap(year) else 365


@dataclass(frozen=True, order=True)
class Day:
    year: int
    month: int
    day: int

    def __post_init__(self):
        if not 1 <= self.month <= 12 or not 1 <= self.day <= days_in_month(self.year, self.month):
            raise ValueError(f"no such date: {self}")

    @classmethod
    def parse(cls, text):
        year, month, day = (int(part) for part in text.split("-"))
        return cls(year, month, day)

    def __str__(self):
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def day_of_year(self):
        return sum(days_in_month(self.year, m) for m in range(1, self.month)) + self.day

    def ordinal(self):
        """Days since 0001-01-01, which is day 1."""
        y = self.year - 1
        return y * 365 + y // 4 - y // 100 + y // 400 + self.day_of_year()

    def weekday(self):
        return WEEKDAYS[(self.ordinal() - 1) % 7]


def days_between(a, b):
    """Signed number of days from date a to date b (strings 'YYYY-MM-DD' or Day values)."""
    a = Day.parse(a) if isinstance(a, str) else a
    b = Day.parse(b) if isinstance(b, str) else b
    return b.ordinal() - a.ordinal()
