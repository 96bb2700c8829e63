"""dijkstra on directed graphs with weights >= 0 (zeros, parallel edges, cycles, unreachable nodes)."""


def trial(module, rng):
    n = rng.randint(1, 8)
    graph = {
        u: [(rng.randrange(n), rng.choice([0, rng.randint(1, 20)])) for _ in range(rng.randint(0, 3))] for u in range(n)
    }
    source = rng.randrange(n)
    return sorted(module.dijkstra(graph, source).items())
