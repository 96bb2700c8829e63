"""climb_stairs for n from 0, with the default steps and with other sets of distinct positive step sizes."""


def trial(module, rng):
    n = rng.choice([0, 1, 2, rng.randint(0, 40)])
    if rng.random() < 0.4:
        return module.climb_stairs(n)
    steps = tuple(rng.sample(range(1, 7), rng.randint(1, 3)))
    return module.climb_stairs(n, steps)
