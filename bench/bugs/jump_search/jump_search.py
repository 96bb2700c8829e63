import math


def jump_search(xs, target):
    """The index of ``target`` in the sorted list ``xs``, or -1: jump in blocks of sqrt(n), then scan one block."""
    n = len(xs)
    step = max(1, math.isqrt(n))
    start = 0
    while start < n and xs[min(start + step, n) - 1] < target:
        start += step
    for i in range(start, min(start + step, n)):
        if xs[i] == target:
            return i
    return -1
