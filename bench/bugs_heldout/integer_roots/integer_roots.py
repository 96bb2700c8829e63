"""Exact integer roots with Newton's method, and what they are used for: squares, perfect powers, radicals."""


def isqrt(n):
    """The largest integer whose square is at most ``n``."""
    if n < 0:
        raise ValueError("square root of a negative number")
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def iroot(n, k):
    """The largest integer r with r**k <= n, for n >= 0 and k >= 1."""
    if k < 1 or n < 0:
        raise ValueError("need n >= 0 and k >= 1")
    if k == 2:
        return isqrt(n)
    if n < 2 or k == 1:
        return n
    r = 1 << ((n.bit_length() + k - 1) // k)  # a power of two at or above the root
    while True:
        s = ((k - 1) * r + n // r ** (k - 1)) // k
        if s >= r:
            return r
        r = s


def is_square(n):
    return n >= 0 and isqrt(n) ** 2 == n


def perfect_power(n):
    """(base, exponent) with the largest exponent such that base**exponent == n, for n >= 2."""
    for k in range(n.bit_length(), 1, -1):
        r = iroot(n, k)
        if r**k == n:
            return r, k
    return n, 1


def simplify_sqrt(n):
    """(a, b) with sqrt(n) == a * sqrt(b) and b square-free."""
    a, b = 1, n
    f = 2
    while f * f <= b:
        if b % (f * f) == 0:
            a, b = a * f, b // (f * f)
        else:
            f += 1
    return a, b
