"""primes_up_to for n below 2, small n (often a square or a prime) and larger n."""


def trial(module, rng):
    n = rng.choice([rng.randint(-3, 2), rng.randint(3, 60), rng.choice([4, 9, 25, 49, 121, 169]), rng.randint(0, 600)])
    return module.primes_up_to(n)
