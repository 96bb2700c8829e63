"""is_prime on negatives, 0, 1, small numbers, squares of primes and larger numbers."""

SQUARES = [p * p for p in (2, 3, 5, 7, 11, 13, 97, 997)]


def trial(module, rng):
    ns = [rng.randint(-5, 40), rng.randint(0, 2000), rng.choice(SQUARES), rng.randint(10**5, 10**6)]
    return [bool(module.is_prime(n)) for n in ns]
