"""Exact integer roots by bisection (no floating point, so they work for huge numbers)."""


def iroot(n: int, k: int) -> int:
    """The largest r >= 0 with r**k <= n, for n >= 0 and k >= 1."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if n < 0:
        raise ValueError("n must be non-negative")
    lo, hi = 0, 1
    while hi**k <= n:
        hi *= 2
    # invariant: lo**k <= n < hi**k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid**k <= n:
            lo = mid
        else:
            hi = mid
    return lo


def isqrt(n: int) -> int:
    return iroot(n, 2)


def is_perfect_power(n: int, k: int) -> bool:
    return iroot(n, k) ** k == n


def is_square(n: int) -> bool:
    return n >= 0 and is_perfect_power(n, 2)


def sqrt_floor_and_rest(n: int) -> tuple[int, int]:
    """Return (r, n - r*r), like divmod for square roots."""
    r = isqrt(n)
    return r, n - r * r


def hypotenuse(a: int, b: int) -> int | None:
    """The integer c with a*a + b*b == c*c, or None if there is none."""
    c2 = a * a + b * b
    return isqrt(c2) if is_square(c2) else None
