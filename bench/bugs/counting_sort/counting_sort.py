def counting_sort(xs):
    """A sorted copy of a list of integers: count each value between the minimum and the maximum."""
    if not xs:
        return []
    lo, hi = min(xs), max(xs)
    counts = [0] * (hi - lo + 1)
    for x in xs:
        counts[x - lo] += 1
    out = []
    for offset, count in enumerate(counts):
        out.extend([offset + lo] * count)
    return out
