"""lcs_length of short strings over a small alphabet, and of lists of integers (empty, equal, disjoint)."""


def trial(module, rng):
    if rng.random() < 0.7:
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 8)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 8)))
    else:
        a = [rng.randint(-2, 2) for _ in range(rng.randint(0, 8))]
        b = [rng.randint(-2, 2) for _ in range(rng.randint(0, 8))]
    return [module.lcs_length(a, b), module.lcs_length(b, a)]
