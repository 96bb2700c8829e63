"""Prime tables from a sieve of Eratosthenes, and factorisation with the primes it finds."""

from collections import Counter
from math import isqrt, prod


class PrimeTable:
    """Primality of every integer in [0, limit], computed once."""

    def __init__(self, limit):
        if limit < 2:
            raise ValueError("a prime table needs a limit of at least 2")
        self.limit = limit
        sieve = [True] * (limit + 1)
        sieve[0] = sieve[1] = False
        for p in range(2, isqrt(limit) + 1):
            if sieve[p]:
                sieve[p * p :: p] = [False] * len(range(p * p, limit + 1, p))
        self._sieve = sieve

    def __contains__(self, n):
        if not 0 <= n <= self.limit:
            raise ValueError(f"{n} is outside the table (0..{self.limit})")
        return self._sieve[n]

    def primes(self):
        return [n for n, flag in enumerate(self._sieve) if flag]

    def factorise(self, n):
        """Prime factors of n with multiplicity, ascending; n may be up to limit**2."""
        if n < 1:
            raise ValueError("only positive integers have a factorisation")
        factors = []
        for p in self.primes():
            if p * p > n:
                break
            while n % p == 0:
                factors.append(p)
                n //= p
        if n > 1:
            factors.append(n)
        return factors


def divisor_count(table, n):
    return prod(e + 1 for e in Counter(table.factorise(n)).values())


def totient(table, n):
    result = n
    for p in set(table.factorise(n)):
        result -= result // p
    return result
