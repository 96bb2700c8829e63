"""quickselect on non-empty lists with duplicates and negatives, for every rank k."""


def trial(module, rng):
    xs = [rng.randint(-6, 6) for _ in range(rng.randint(1, 10))]
    return [module.quickselect(list(xs), k) for k in range(len(xs))]
