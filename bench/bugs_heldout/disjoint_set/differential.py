def trial(module, rng):
    n = rng.randint(1, 12)
    ds = module.DisjointSet(range(n))
    out = []
    for _ in range(rng.randint(0, 25)):
        a, b = rng.randrange(n + 1), rng.randrange(n + 1)
        op = rng.choice(["union", "union", "connected", "size_of", "find"])
        if op == "union":
            out.append(ds.union(a, b))
        elif op == "connected":
            out.append(ds.connected(a, b))
        elif op == "size_of":
            out.append(ds.size_of(a))
        else:
            out.append(ds.connected(ds.find(a), a))
    out.append(ds.groups())
    edges = [module.Edge(rng.randint(-5, 20), rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 20))]
    chosen, total = module.minimum_spanning_forest(range(n), edges)
    out.append(([(e.weight, e.u, e.v) for e in chosen], total))
    return out
