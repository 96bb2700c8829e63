"""Running statistics over a stream, in one pass (Welford's method), without keeping the values."""

import math
from typing import NamedTuple


class Snapshot(NamedTuple):
    count: int
    mean: float
    variance: float


class RunningStats:
    def __init__(self):
        self.count = 0
        self.mean = 0.0
        self._m2 = 0.0
        self.minimum = None
        self.maximum = None

    def push(self, value):
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self._m2 += delta * (value - self.mean)
        self.minimum = value if self.minimum is None else min(self.minimum, value)
        self.maximum = value if self.maximum is None else max(self.maximum, value)

    def variance(self, sample=True):
        """The sample variance by default; 0.0 until there are enough values."""
        n = self.count - 1 if sample else self.count
        return self._m2 / n if n > 0 else 0.0

    def stdev(self, sample=True):
        return math.sqrt(self.variance(sample))

    def snapshot(self):
        return Snapshot(self.count, self.mean, self.variance())


def running(values):
    """A snapshot after each value."""
    stats = RunningStats()
    for value in values:
        stats.push(value)
        yield stats.snapshot()


def zscores(values):
    """Each value's distance from the mean of the values before it, in standard deviations (None at first)."""
    stats = RunningStats()
    for value in values:
        spread = stats.stdev()
        yield (value - stats.mean) / spread if spread else None
        stats.push(value)
