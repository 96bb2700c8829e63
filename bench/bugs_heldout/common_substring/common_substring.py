"""Longest common substrings of two texts by dynamic programming on matching suffix lengths."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Match:
    start_a: int
    start_b: int
    length: int


def longest_match(a, b):
    """The longest block shared by a and b; the earliest in a wins ties, then the earliest in b."""
    best = Match(0, 0, 0)
    previous = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                current[j] = previous[j - 1] + 1
                if current[j] > best.length:
                    best = Match(i - current[j], j - current[j], current[j])
        previous = current
    return best


def longest_common_substring(a, b):
    match = longest_match(a, b)
    return a[match.start_a : match.start_a + match.length]


def shared_blocks(a, b, min_length=2):
    """Non-overlapping shared blocks, longest first, found by repeatedly removing the best match."""
    if not a or not b:
        return []
    match = longest_match(a, b)
    if match.length < min_length:
        return []
    block = a[match.start_a : match.start_a + match.length]
    left = shared_blocks(a[: match.start_a], b[: match.start_b], min_length)
    right = shared_blocks(a[match.start_a + match.length :], b[match.start_b + match.length :], min_length)
    return [block, *sorted(left + right, key=len, reverse=True)]


def similarity(a, b):
    """2 * shared characters / total characters, as difflib's ratio does (1.0 for two empty strings)."""
    if not a and not b:
        return 1.0
    return 2 * sum(len(block) for block in shared_blocks(a, b, 1)) / (len(a) + len(b))
