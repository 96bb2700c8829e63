"""Modular arithmetic helpers: fast exponentiation, inverses and a Miller-Rabin primality test."""

SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def mod_pow(base, exponent, modulus):
    """Return base**exponent % modulus by square-and-multiply (exponent >= 0)."""
    if modulus <= 0:
        raise ValueError("modulus must be positive")
    if exponent < 0:
        return mod_pow(mod_inverse(base, modulus), -exponent, modulus)
    result = 1 % modulus
    base %= modulus
    while exponent:
        if exponent & 1:
            result = result * base % modulus
        base = base * base % modulus
        exponent >>= 1
    return result


def extended_gcd(a, b):
    """Return (g, x, y) with a*x + b*y == g == gcd(a, b)."""
    if b == 0:
        return a, 1, 0
    g, x, y = extended_gcd(b, a % b)
    return g, y, x - (a // b) * y


def mod_inverse(a, modulus):
    g, x, _ = extended_gcd(a % modulus, modulus)
    if g != 1:
        raise ValueError(f"{a} has no inverse modulo {modulus}")
    return x % modulus


def _is_witness(a, d, s, n):
    """True when a proves n composite (n - 1 == d * 2**s, d odd)."""
    x = mod_pow(a, d, n)
    if x in (1, n - 1):
        return False
    for _ in range(s - 1):
        x = x * x % n
        if x == n - 1:
            return False
    return True


def is_prime(n):
    """Deterministic Miller-Rabin for n < 3.3 * 10**24."""
    if n < 2:
        return False
    for p in SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    return not any(_is_witness(a, d, s, n) for a in SMALL_PRIMES)


def next_prime(n):
    candidate = max(n + 1, 2)
    while not is_prime(candidate):
        candidate += 1
    return candidate
