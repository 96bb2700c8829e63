"""is_bipartite on undirected graphs (adjacency lists in both directions): even and odd cycles, trees, forests."""


def trial(module, rng):
    n = rng.randint(0, 9)
    graph = {u: [] for u in range(n)}
    if rng.random() < 0.5:  # a two-coloured graph, so bipartite unless an edge inside a side is added
        side = [rng.randint(0, 1) for _ in range(n)]
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if side[u] != side[v]]
    else:
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    for u, v in pairs:
        if rng.random() < 0.3:
            graph[u].append(v)
            graph[v].append(u)
    if n >= 2 and rng.random() < 0.2:
        u, v = rng.sample(range(n), 2)
        graph[u].append(v)
        graph[v].append(u)
    return bool(module.is_bipartite(graph))
