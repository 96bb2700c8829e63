def trial(module, rng):
    n = rng.choice([0, 1, 2, rng.randint(0, 30)])
    spread = rng.choice([1, 3, 3, 100])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    return [
        module.longest_increasing(values),
        module.longest_non_decreasing(values),
        module.lis_length(values),
        module.removals_to_sort(values),
    ]
