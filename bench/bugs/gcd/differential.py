"""gcd of non-negative integers (zeros, equal values, coprimes, large values) and lcm of positive ones."""


def trial(module, rng):
    common = rng.choice([1, rng.randint(1, 50)])
    a = common * rng.choice([0, 1, rng.randint(0, 100), rng.randint(0, 10**12)])
    b = common * rng.choice([0, 1, rng.randint(0, 100), rng.randint(0, 10**12)])
    c, d = rng.randint(1, 200), rng.randint(1, 200)
    return [module.gcd(a, b), module.gcd(b, a), module.lcm(c, d)]
