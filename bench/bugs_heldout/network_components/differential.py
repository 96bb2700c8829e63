def trial(module, rng):
    net = module.Network()
    n = rng.randint(1, 10)
    out = []
    for _ in range(rng.randint(0, 20)):
        a, b = rng.randrange(n), rng.randrange(n)
        action = rng.random()
        if action < 0.6:
            net.link(a, b)
        elif action < 0.8:
            net.unlink(a, b)
        else:
            net.add_host(a)
    out.append(net.components())
    out.append(net.isolated())
    out.append(net.largest())
    hosts = [h for comp in net.components() for h in comp]
    if hosts:
        h = rng.choice(hosts)
        out.append(net.component_of(h))
        out.append(net.can_reach(h, rng.choice(hosts)))
    return out
