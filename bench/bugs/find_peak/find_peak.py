def find_peak(xs):
    """The index of a peak of a non-empty list: an element no smaller than its neighbours (binary search)."""
    lo, hi = 0, len(xs) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < xs[mid + 1]:
            lo = mid + 1
        else:
            hi = mid
    return lo
