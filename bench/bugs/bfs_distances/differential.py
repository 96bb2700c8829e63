"""bfs_distances on directed graphs with cycles, self-loops and unreachable nodes, from a random start node."""


def trial(module, rng):
    n = rng.randint(1, 9)
    graph = {u: [rng.randrange(n) for _ in range(rng.randint(0, 3))] for u in range(n)}
    start = rng.randrange(n)
    return sorted(module.bfs_distances(graph, start).items())
