def trial(module, rng):
    n = rng.choice([1, 2, 3, rng.randint(1, 30)])
    spread = rng.choice([2, 10, 10**6])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    out = [module.kth_smallest(values, rng.randrange(n)) for _ in range(3)]
    out.append(module.median(values))
    out.append(module.percentile(values, rng.randint(1, 100)))
    out.append(module.top_k(values, rng.randint(-1, n + 1)))
    out.append(values)
    return out
