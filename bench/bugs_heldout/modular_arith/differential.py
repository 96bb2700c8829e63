def trial(module, rng):
    out = []
    for _ in range(4):
        base = rng.choice([0, 1, 2, -3, rng.randint(-(10**6), 10**6)])
        exponent = rng.choice([0, 1, 2, rng.randint(0, 70), rng.randint(0, 10**9)])
        modulus = rng.choice([1, 2, 97, rng.randint(1, 10**9)])
        out.append(module.mod_pow(base, exponent, modulus))
    a, b = rng.randint(0, 10**6), rng.randint(0, 10**6)
    out.append(module.extended_gcd(a, b))
    for _ in range(6):
        n = rng.choice([rng.randint(-5, 60), rng.randint(0, 10**6), rng.randint(10**12, 10**13), 561, 1_000_000_007])
        out.append(module.is_prime(n))
    out.append(module.next_prime(rng.randint(-3, 2000)))
    return out
