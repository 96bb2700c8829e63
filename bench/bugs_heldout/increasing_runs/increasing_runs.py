"""Longest increasing subsequences in O(n log n) with patience sorting."""

from bisect import bisect_left, bisect_right


def _longest_chain(values, strict):
    """Indices of one longest chain: among equally long chains, one ending at the smallest possible value."""
    search = bisect_left if strict else bisect_right
    tail_values = []  # tail_values[k]: smallest last value of any chain of length k + 1
    tail_index = []
    parent = [None] * len(values)
    for i, value in enumerate(values):
        k = search(tail_values, value)
        if k > 0:
            parent[i] = tail_index[k - 1]
        if k == len(tail_values):
            tail_values.append(value)
            tail_index.append(i)
        else:
            tail_values[k] = value
            tail_index[k] = i
    chain = []
    i = tail_index[-1] if tail_index else None
    while i is not None:
        chain.append(i)
        i = parent[i]
    return chain[::-1]


def longest_increasing(values):
    """A longest strictly increasing subsequence."""
    return [values[i] for i in _longest_chain(values, strict=True)]


def longest_non_decreasing(values):
    return [values[i] for i in _longest_chain(values, strict=False)]


def lis_length(values):
    return len(_longest_chain(values, strict=True))


def removals_to_sort(values):
    """How many items must be removed so that the rest is already in (non-decreasing) order."""
    return len(values) - len(_longest_chain(values, strict=False))
