def trial(module, rng):
    n = rng.randint(0, 6)
    items = [rng.randint(-3, 3) for _ in range(n)]
    k = rng.randint(0, n + 1)
    out = [list(module.combinations(items, k)), list(module.power_set(items[:4]))]
    out.append(list(module.permutations(items[:4])))
    big = rng.randint(0, 70)
    out.append(module.count_combinations(big, rng.randint(-1, big + 1)))
    out.append(module.count_combinations(n, k))
    return out
