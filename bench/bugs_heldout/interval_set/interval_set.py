"""A set of numbers stored as sorted, disjoint half-open intervals [start, end)."""

from bisect import bisect_right


def _merge(intervals):
    """Sort the intervals and join those that overlap or touch."""
    merged = []
    for start, end in sorted(intervals):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


class IntervalSet:
    def __init__(self, intervals=()):
        self._spans = _merge(intervals)

    def add(self, start, end):
        self._spans = _merge([*self._spans, (start, end)])

    def remove(self, start, end):
        kept = []
        for lo, hi in self._spans:
            kept.extend([(lo, min(hi, start)), (max(lo, end), hi)])
        self._spans = _merge(kept)

    def __contains__(self, x):
        i = bisect_right(self._spans, (x, float("inf"))) - 1
        return i >= 0 and self._spans[i][0] <= x < self._spans[i][1]

    def __or__(self, other):
        return IntervalSet(self._spans + other._spans)

    def __eq__(self, other):
        return isinstance(other, IntervalSet) and self._spans == other._spans

    def __len__(self):
        return len(self._spans)

    def intervals(self):
        return list(self._spans)

    def total_length(self):
        return sum(end - start for start, end in self._spans)

    def gaps(self, lo, hi):
        """The parts of [lo, hi) not in the set, in order."""
        cursor = lo
        for start, end in self._spans:
            if start > cursor:
                yield (cursor, min(start, hi))
            cursor = max(cursor, end)
            if cursor >= hi:
                return
        if cursor < hi:
            yield (cursor, hi)
