"""topo_sort on directed acyclic graphs (empty, isolated nodes, chains, diamonds), every node a key.

Any order in which every edge points forward is right, so each call yields the sorted nodes returned,
whether none repeats, and whether every edge points forward, not the order itself.
"""


def trial(module, rng):
    n = rng.randint(0, 9)
    order = list(range(n))
    rng.shuffle(order)
    graph = {node: [] for node in rng.sample(order, n)}  # keys in an order unrelated to the edges
    for i, u in enumerate(order):
        for v in order[i + 1 :]:
            if rng.random() < 0.3:
                graph[u].append(v)
    got = module.topo_sort({u: list(vs) for u, vs in graph.items()})
    position = {node: i for i, node in enumerate(got)}
    forward = all(u in position and v in position and position[u] < position[v] for u in graph for v in graph[u])
    return [sorted(got), len(position) == len(got), forward]
