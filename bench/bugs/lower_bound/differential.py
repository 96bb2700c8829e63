"""lower_bound on sorted lists with duplicates, for targets present, absent, below and above every element."""


def trial(module, rng):
    xs = sorted(rng.randint(-10, 10) for _ in range(rng.randint(0, 12)))
    queries = [rng.randint(-12, 12) for _ in range(4)]
    queries += [rng.choice(xs) for _ in range(4)] if xs else []
    queries += [xs[0] - 1, xs[0], xs[-1], xs[-1] + 1] if xs else []
    return [module.lower_bound(list(xs), target) for target in queries]
