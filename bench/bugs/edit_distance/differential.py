"""edit_distance between short strings over a small alphabet (empty, equal, one a prefix of the other)."""


def trial(module, rng):
    a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 8)))
    b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 8)))
    if rng.random() < 0.15:
        b = a[: rng.randint(0, len(a))]
    return [module.edit_distance(a, b), module.edit_distance(b, a), module.edit_distance(a, a)]
