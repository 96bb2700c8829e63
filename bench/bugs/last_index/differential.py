"""last_index on unsorted lists with many duplicates, for targets present (often several times) and absent."""


def trial(module, rng):
    xs = [rng.randint(-3, 3) for _ in range(rng.randint(0, 10))]
    queries = [rng.randint(-4, 4) for _ in range(5)]
    return [module.last_index(list(xs), target) for target in queries]
