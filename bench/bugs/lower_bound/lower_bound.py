def lower_bound(xs, target):
    """The first index ``i`` with ``xs[i] >= target`` in the sorted list ``xs`` (``len(xs)`` if none)."""
    lo, hi = 0, len(xs)
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo
