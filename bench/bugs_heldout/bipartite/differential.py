def trial(module, rng):
    n = rng.randint(0, 9)
    edges = []
    for _ in range(rng.randint(0, 10)):
        a, b = rng.randrange(max(n, 1)), rng.randrange(max(n, 1))
        if a != b and (rng.random() < 0.5 or (a + b) % 2 == 1):
            edges.append((a, b))
    graph = module.graph_from_edges(edges, nodes=range(n))
    colouring = module.two_colouring(graph)
    return [
        sorted(colouring.items()) if colouring is not None else None,
        module.is_bipartite(graph),
        module.partition(graph),
        module.can_pair_teams(edges, range(n)),
    ]
