def trial(module, rng):
    out = []
    for _ in range(4):
        n = rng.choice([0, 1, 2, 3, 4, rng.randint(0, 200), rng.randint(0, 10**30), rng.randint(0, 10**6) ** 2])
        out.append(module.isqrt(n))
        out.append(module.iroot(n, rng.randint(1, 5)))
        out.append(module.is_square(n))
        out.append(module.sqrt_floor_and_rest(n))
    out.append(module.is_square(-rng.randint(1, 10)))
    out.append(module.hypotenuse(rng.randint(0, 50), rng.randint(0, 50)))
    return out
