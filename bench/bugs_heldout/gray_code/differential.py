def trial(module, rng):
    n = rng.choice([0, 1, 2, rng.randint(0, 1000), rng.randint(0, 2**40)])
    bits = rng.randint(0, 5)
    codes = list(module.gray_sequence(bits))
    walk = [rng.randrange(1 << bits)]
    for _ in range(rng.randint(0, 6)):
        walk.append((walk[-1] + rng.choice([-1, 0, 1])) % (1 << bits))
    return [
        module.to_gray(n),
        module.from_gray(n),
        codes,
        module.gray_strings(bits),
        module.changed_bit(rng.randint(0, 15), rng.randint(0, 15)),
        module.rotary_positions([module.to_gray(w) for w in walk]),
    ]
