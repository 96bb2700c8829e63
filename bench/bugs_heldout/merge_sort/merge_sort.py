"""A stable top-down merge sort, and inversion counting built on the same merge."""

from itertools import pairwise


def merge_sort(values, key=None):
    """Return a new sorted list; equal keys keep their input order."""
    if key is None:
        return [item for item, _ in _sort_pairs([(v, v) for v in values])]
    return [item for item, _ in _sort_pairs([(v, key(v)) for v in values])]


def _sort_pairs(pairs):
    if len(pairs) <= 1:
        return list(pairs)
    middle = len(pairs) // 2
    left = _sort_pairs(pairs[:middle])
    right = _sort_pairs(pairs[middle:])
    merged, _ = _merge(left, right)
    return merged


def _merge(left, right):
    """Merge two sorted pair lists; also count pairs (l, r) with r's key < l's key."""
    merged = []
    inversions = 0
    i = j = 0
    while i < len(left) and j < len(right):
        if right[j][1] < left[i][1]:
            merged.append(right[j])
            inversions += len(left) - i
            j += 1
        else:
            merged.append(left[i])
            i += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged, inversions


def count_inversions(values):
    """Number of index pairs i < j with values[i] > values[j], in O(n log n)."""
    _, total = _count([(v, v) for v in values])
    return total


def _count(pairs):
    if len(pairs) <= 1:
        return list(pairs), 0
    middle = len(pairs) // 2
    left, a = _count(pairs[:middle])
    right, b = _count(pairs[middle:])
    merged, c = _merge(left, right)
    return merged, a + b + c


def is_sorted(values, key=None):
    keys = [key(v) for v in values] if key else list(values)
    return all(x <= y for x, y in pairwise(keys))
