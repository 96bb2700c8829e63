"""Order statistics with quickselect: k-th smallest, median and nearest-rank percentiles."""

import math


def _partition(items, lo, hi):
    """Lomuto partition of items[lo..hi] around items[hi]; returns the pivot's final index."""
    pivot = items[hi]
    store = lo
    for i in range(lo, hi):
        if items[i] < pivot:
            items[i], items[store] = items[store], items[i]
            store += 1
    items[store], items[hi] = items[hi], items[store]
    return store


def kth_smallest(values, k):
    """The k-th smallest value (k = 0 is the minimum). The input is not modified."""
    if not 0 <= k < len(values):
        raise IndexError(f"k={k} out of range for {len(values)} values")
    items = list(values)
    lo, hi = 0, len(items) - 1
    while True:
        p = _partition(items, lo, hi)
        if p == k:
            return items[p]
        if k < p:
            hi = p - 1
        else:
            lo = p + 1


def median(values):
    n = len(values)
    if n == 0:
        raise ValueError("median of an empty sequence")
    upper = kth_smallest(values, n // 2)
    if n % 2:
        return upper
    lower = kth_smallest(values, n // 2 - 1)
    return (lower + upper) / 2


def percentile(values, pct):
    """Nearest-rank percentile: the smallest value with at least pct% of the data at or below it."""
    if not 0 < pct <= 100:
        raise ValueError("pct must be in (0, 100]")
    rank = math.ceil(pct / 100 * len(values))
    return kth_smallest(values, rank - 1)


def top_k(values, k):
    """The k largest values, largest first."""
    if k <= 0:
        return []
    k = min(k, len(values))
    threshold = kth_smallest(values, len(values) - k)
    above = [v for v in values if v > threshold]
    return sorted(above, reverse=True) + [threshold] * (k - len(above))
