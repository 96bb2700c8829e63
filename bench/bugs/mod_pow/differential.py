"""mod_pow (base ** exponent % modulus): exponents from 0, moduli from 1, negative and large bases."""


def trial(module, rng):
    base = rng.choice([0, 1, rng.randint(-50, 50), rng.randint(0, 10**18)])
    exponent = rng.choice([0, 1, rng.randint(0, 64), rng.randint(0, 10**6)])
    modulus = rng.choice([1, 2, rng.randint(1, 100), rng.randint(1, 10**9)])
    return module.mod_pow(base, exponent, modulus)
