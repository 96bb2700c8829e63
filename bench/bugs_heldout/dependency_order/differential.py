def trial(module, rng):
    names = [chr(ord("a") + i) for i in range(rng.randint(1, 7))]
    graph = module.DependencyGraph()
    acyclic = rng.random() < 0.7
    for i, name in enumerate(names):
        pool = names[:i] if acyclic else names
        graph.require(name, *rng.sample(pool, rng.randint(0, min(3, len(pool)))))
    out = [graph.items(), graph.find_cycle()]
    if out[-1] is None:
        out.append(graph.order())
        out.append(graph.order(targets=rng.sample(names, rng.randint(0, len(names)))))
        out.append([graph.depth(n) for n in names])
    return out
