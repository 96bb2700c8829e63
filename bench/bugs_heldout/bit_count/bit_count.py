"""Counting and enumerating set bits of non-negative integers."""


def popcount(n):
    """Number of 1 bits (Kernighan: each step clears the lowest set bit)."""
    if n < 0:
        raise ValueError("popcount of a negative number")
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


def parity(n):
    """0 if n has an even number of 1 bits, else 1."""
    return popcount(n) % 2


def hamming_distance(a, b):
    return popcount(a ^ b)


def set_bits(n):
    """Yield the positions of the 1 bits of n, lowest first."""
    position = 0
    while n:
        if n & 1:
            yield position
        n >>= 1
        position += 1


def lowest_set_bit(n):
    return (n & -n).bit_length() - 1 if n else None


def next_same_popcount(n):
    """The next larger integer with as many 1 bits as n (Gosper's hack); n > 0."""
    lowest = n & -n
    ripple = n + lowest
    ones = ((n ^ ripple) >> 2) // lowest
    return ripple | ones


def subsets_of_size(width, k):
    """Yield every width-bit mask with exactly k bits set, ascending."""
    if k == 0:
        yield 0
        return
    mask = (1 << k) - 1
    while mask < 1 << width:
        yield mask
        mask = next_same_popcount(mask)
