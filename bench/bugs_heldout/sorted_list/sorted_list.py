"""A list that keeps itself sorted, with binary search for membership, ranks and range queries."""


def _bisect(items, x, right=False):
    """The index where ``x`` would be inserted: before equal items, or after them when ``right``."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid] < x or (right and items[mid] == x):
            lo = mid + 1
        else:
            hi = mid
    return lo


class SortedList:
    def __init__(self, items=()):
        self._items = sorted(items)

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(self._items)

    def __getitem__(self, index):
        return self._items[index]

    def add(self, x):
        self._items.insert(_bisect(self._items, x, right=True), x)

    def __contains__(self, x):
        i = _bisect(self._items, x)
        return i < len(self._items) and self._items[i] == x

    def remove(self, x):
        if x not in self:
            raise ValueError(f"{x!r} not in list")
        del self._items[_bisect(self._items, x)]

    def count(self, x):
        return _bisect(self._items, x, right=True) - _bisect(self._items, x)

    def rank(self, x):
        """How many items are smaller than ``x``."""
        return _bisect(self._items, x)

    def between(self, low, high):
        """Items with low <= item <= high."""
        return self._items[_bisect(self._items, low) : _bisect(self._items, high, right=True)]

    def nearest(self, x):
        """The item closest to ``x`` (the smaller one on a tie), or None when empty."""
        i = _bisect(self._items, x)
        candidates = self._items[max(i - 1, 0) : i + 1]
        return min(candidates, key=lambda item: (abs(item - x), item), default=None)
