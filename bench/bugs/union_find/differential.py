"""count_components on nodes 0..n-1 with random edges (repeated edges, self-loops, edges inside one component)."""


def trial(module, rng):
    n = rng.randint(0, 10)
    edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 12))] if n else []
    return module.count_components(n, edges)
