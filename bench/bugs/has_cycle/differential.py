"""has_cycle on three directed graphs per trial, nodes small integers (0, 1 and 2 among them), every node a key.

Half the graphs are acyclic (every edge goes forward in a shuffled order), some with one back edge or
self-loop added; the rest have random edges. Nodes finished by an earlier search are reached again often.
"""


def trial(module, rng):
    return [bool(module.has_cycle(_graph(rng))) for _ in range(3)]


def _graph(rng):
    n = rng.randint(0, 8)
    nodes = list(range(n))
    rng.shuffle(nodes)  # the keys' order decides where each search starts
    graph = {node: [] for node in nodes}
    if rng.random() < 0.5:
        for i, u in enumerate(nodes):
            for v in nodes[i + 1 :]:
                if rng.random() < 0.35:
                    graph[u].append(v)
        if n and rng.random() < 0.3:
            i = rng.randrange(n)
            graph[nodes[i]].append(nodes[rng.randint(0, i)])  # a back edge or a self-loop: often a cycle
    else:
        for u in nodes:
            graph[u] = [rng.choice(nodes) for _ in range(rng.randint(0, 2))]
    return graph
