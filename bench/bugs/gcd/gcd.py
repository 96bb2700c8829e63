def gcd(a, b):
    """The greatest common divisor of two non-negative integers (Euclid)."""
    while b:
        a, b = b, a % b
    return a


def lcm(a, b):
    """The least common multiple of two positive integers."""
    return a // gcd(a, b) * b
