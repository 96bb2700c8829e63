def _round(x):
    return None if x is None else round(x, 6)


def trial(module, rng):
    values = [rng.choice([rng.randint(-50, 50), rng.uniform(-1e3, 1e3), 7]) for _ in range(rng.randint(0, 12))]
    snapshots = [(s.count, _round(s.mean), _round(s.variance)) for s in module.running(values)]
    stats = module.RunningStats()
    for value in values:
        stats.push(value)
    return [
        snapshots,
        [_round(z) for z in module.zscores(values)],
        _round(stats.stdev(sample=False)),
        (stats.minimum, stats.maximum),
    ]
