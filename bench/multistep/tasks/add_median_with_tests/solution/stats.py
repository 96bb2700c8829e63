"""Small descriptive statistics helpers."""


def mean(values):
    """Arithmetic mean of a non-empty list of numbers."""
    if not values:
        raise ValueError("mean() of empty list")
    return sum(values) / len(values)


def value_range(values):
    """Difference between the largest and the smallest value."""
    if not values:
        raise ValueError("value_range() of empty list")
    return max(values) - min(values)


def median(values):
    """Middle value of a non-empty list (average of the two middle ones)."""
    if not values:
        raise ValueError("median() of empty list")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2
