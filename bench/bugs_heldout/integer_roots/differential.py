def trial(module, rng):
    n = rng.choice([rng.randint(0, 50), rng.randint(0, 10**6), rng.randint(0, 10**30), rng.randint(2, 40) ** 2])
    k = rng.randint(1, 6)
    power = rng.randint(2, 12) ** rng.randint(2, 7)
    return [
        module.isqrt(n),
        module.iroot(n, k),
        module.is_square(n),
        module.perfect_power(power),
        module.simplify_sqrt(rng.randint(1, 5000)),
    ]
