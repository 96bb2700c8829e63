"""Lazy generators over the ways to choose and arrange items."""

from collections.abc import Iterator, Sequence


def combinations(items: Sequence, k: int) -> Iterator[tuple]:
    """Yield every k-element combination of items, in lexicographic order of positions."""
    if k < 0:
        raise ValueError("k must be non-negative")
    yield from _choose(items, k, 0, [])


def _choose(items: Sequence, k: int, start: int, chosen: list) -> Iterator[tuple]:
    if len(chosen) == k:
        yield tuple(chosen)
        return
    needed = k - len(chosen)
    for i in range(start, len(items) - needed + 1):
        chosen.append(items[i])
        yield from _choose(items, k, i + 1, chosen)
        chosen.pop()


def power_set(items: Sequence) -> Iterator[tuple]:
    """Yield all subsets, smallest first."""
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def permutations(items: Sequence) -> Iterator[tuple]:
    """Yield every ordering of items (positions are distinct even if values repeat)."""
    if len(items) <= 1:
        yield tuple(items)
        return
    for i, first in enumerate(items):
        rest = [*items[:i], *items[i + 1 :]]
        for tail in permutations(rest):
            yield (first, *tail)


def count_combinations(n: int, k: int) -> int:
    """n choose k, without building the combinations."""
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result
