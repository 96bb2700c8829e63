def quickselect(xs, k):
    """The ``k``-th smallest element (0-based) of a non-empty list ``xs``."""
    pivot = xs[len(xs) // 2]
    smaller = [x for x in xs if x < pivot]
    equal = [x for x in xs if x == pivot]
    larger = [x for x in xs if x > pivot]
    if k < len(smaller):
        return quickselect(smaller, k)
    if k < len(smaller) + len(equal):
        return pivot
    return quickselect(larger, k - len(smaller) - len(equal))
