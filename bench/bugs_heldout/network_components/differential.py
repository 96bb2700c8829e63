def trial(module, rng):
    net = module.Network()
    n = rng.randint(1, 10)
    for _ in range(rng.randint(0, 20)):
        a, b = rng.randrange(n), rng.randrange(n)
        action = rng.random()
        if action < 0.6:
            net.link(a, b)
        elif action < 0.8:
            net.unlink(a, b)
        else:
            net.add_host(a)
    host, other = rng.randrange(n), rng.randrange(n)
    query = rng.choice(["components", "isolated", "largest", "component_of", "can_reach"])
    if query == "components":
        return net.components()
    if query == "isolated":
        return net.isolated()
    if query == "largest":
        return net.largest()
    if query == "component_of":
        net.add_host(host)
        return net.component_of(host)
    return net.can_reach(host, other) if host in [h for c in net.components() for h in c] else None
