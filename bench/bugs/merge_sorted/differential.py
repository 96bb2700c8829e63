"""merge_sorted on two sorted lists (either may be empty), with ties between them.

The contract says ties take ``a`` first, so in most trials elements carry the side they came from and
compare by value only, and the trial yields the merged ``(value, side)`` pairs.
"""

import functools


@functools.total_ordering
class Item:
    """A value that compares by ``value`` alone and remembers which list it came from."""

    def __init__(self, value, side):
        self.value, self.side = value, side

    def __eq__(self, other):
        return self.value == other.value

    def __lt__(self, other):
        return self.value < other.value


def trial(module, rng):
    a = sorted(rng.randint(-5, 5) for _ in range(rng.choice([0, 1, rng.randint(2, 8)])))
    b = sorted(rng.randint(-5, 5) for _ in range(rng.choice([0, 1, rng.randint(2, 8)])))
    if rng.random() < 0.3:  # plain integers as well as tagged values
        return module.merge_sorted(list(a), list(b))
    left, right = [Item(x, "a") for x in a], [Item(x, "b") for x in b]
    return [(item.value, item.side) for item in module.merge_sorted(left, right)]
