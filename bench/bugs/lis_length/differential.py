"""lis_length on lists of integers (empty, one element, duplicates, negatives, sorted, reversed)."""


def trial(module, rng):
    xs = [rng.randint(-6, 6) for _ in range(rng.choice([0, 1, rng.randint(2, 12)]))]
    shape = rng.random()
    if shape < 0.1:
        xs.sort()
    elif shape < 0.2:
        xs.sort(reverse=True)
    return module.lis_length(xs)
