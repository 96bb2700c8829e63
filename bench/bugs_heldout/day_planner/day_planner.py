"""A one-day calendar: bookings as 'HH:MM' ranges, merged busy time, and the first free slot of a length."""

from dataclasses import dataclass


def to_minutes(clock):
    hours, minutes = clock.split(":")
    total = int(hours) * 60 + int(minutes)
    if not 0 <= total <= 24 * 60 or not 0 <= int(minutes) < 60:
        raise ValueError(f"bad time {clock!r}")
    return total


def to_clock(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int

    def overlaps(self, start, end):
        return self.start < end and start < self.end

    def __str__(self):
        return f"{to_clock(self.start)}-{to_clock(self.end)}"


class DayPlanner:
    def __init__(self, opens="09:00", closes="17:00"):
        self.opens, self.closes = to_minutes(opens), to_minutes(closes)
        self._bookings = []

    def book(self, start, end):
        span = Span(to_minutes(start), to_minutes(end))
        if span.end <= span.start:
            raise ValueError(f"empty booking {start}-{end}")
        self._bookings.append(span)

    def busy(self):
        """Bookings merged into disjoint spans, in time order (touching spans merge too)."""
        merged = []
        for span in sorted(self._bookings):
            if merged and span.start <= merged[-1].end:
                merged[-1] = Span(merged[-1].start, max(merged[-1].end, span.end))
            else:
                merged.append(span)
        return merged

    def free(self):
        """Free spans within opening hours."""
        gaps, cursor = [], self.opens
        for span in self.busy():
            if span.start > cursor:
                gaps.append(Span(cursor, min(span.start, self.closes)))
            cursor = max(cursor, span.end)
        if cursor < self.closes:
            gaps.append(Span(cursor, self.closes))
        return [str(gap) for gap in gaps if gap.start < gap.end]

    def first_slot(self, minutes):
        """Start ('HH:MM') of the earliest free stretch of the given length, or None."""
        start = self.opens
        while start + minutes <= self.closes:
            clash = next((span for span in self.busy() if span.overlaps(start, start + minutes)), None)
            if clash is None:
                return to_clock(start)
            start = clash.end
        return None
