def trial(module, rng):
    rm = module.RoadMap()
    n = rng.randint(1, 8)
    for _ in range(rng.randint(0, 16)):
        rm.add_road(
            rng.randrange(n), rng.randrange(n), rng.choice([0, 1, rng.randint(0, 30)]), two_way=rng.random() < 0.3
        )
    source = rng.randrange(n)
    best, _ = rm.costs_from(source)
    out = [sorted(best.items())]
    for _ in range(3):
        route = rm.route(source, rng.randrange(n))
        out.append(None if route is None else route[0])
    out.append(rm.reachable_within(source, rng.randint(0, 40)))
    return out
