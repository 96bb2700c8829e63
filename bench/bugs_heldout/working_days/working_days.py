"""Working-day arithmetic: weekends and public holidays are not business days."""

from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


class BusinessCalendar:
    def __init__(self, holidays=(), weekend=(5, 6)):
        self.holidays = frozenset(holidays)
        self.weekend = frozenset(weekend)

    def is_business_day(self, day):
        return day.weekday() not in self.weekend and day not in self.holidays

    def roll_forward(self, day):
        """day itself if it is a business day, else the next one."""
        while not self.is_business_day(day):
            day += ONE_DAY
        return day

    def add(self, day, count):
        """The business day count business days after day (before it when count < 0)."""
        step = ONE_DAY if count >= 0 else -ONE_DAY
        remaining = abs(count)
        while remaining:
            day += step
            if self.is_business_day(day):
                remaining -= 1
        return day

    def between(self, start, end):
        """Business days in [start, end); negative when end is before start."""
        if end < start:
            return -self.between(end, start)
        full_weeks, extra = divmod((end - start).days, 7)
        count = full_weeks * (7 - len(self.weekend))
        for offset in range(extra):
            if (start + timedelta(days=full_weeks * 7 + offset)).weekday() not in self.weekend:
                count += 1
        holidays = [h for h in self.holidays if start <= h < end and h.weekday() not in self.weekend]
        return count - len(holidays)


def due_date(received, sla_days, holidays=()):
    """When a ticket received on some day is due: sla_days business days later, counted from a business day."""
    calendar = BusinessCalendar(holidays)
    return calendar.add(calendar.roll_forward(received), sla_days)


def as_dates(texts):
    return [date.fromisoformat(text) for text in texts]
