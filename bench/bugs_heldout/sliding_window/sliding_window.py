"""Sliding windows over a stream, and the statistics built on them."""

from collections import deque
from itertools import islice


def windows(iterable, size, step=1):
    """Tuples of ``size`` consecutive items, starting every ``step`` items; nothing if the input is shorter."""
    if size < 1 or step < 1:
        raise ValueError("size and step must be at least 1")
    iterator = iter(iterable)
    window = deque(islice(iterator, size), maxlen=size)
    if len(window) < size:
        return
    yield tuple(window)
    while True:
        fresh = list(islice(iterator, step))
        if len(fresh) < step:
            return
        window.extend(fresh)
        yield tuple(window)


def pairwise(iterable):
    return windows(iterable, 2)


def moving_average(values, size):
    for window in windows(values, size):
        yield sum(window) / size


def largest_window(values, size):
    """The window with the largest sum (the first one on a tie), or None when there is no full window."""
    best = None
    for window in windows(values, size):
        if best is None or sum(window) > sum(best):
            best = window
    return best


def increases(values):
    """How many times a value is larger than the one before it."""
    return sum(1 for a, b in pairwise(values) if b > a)
