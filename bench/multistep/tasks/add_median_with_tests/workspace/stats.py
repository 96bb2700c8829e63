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
