def trial(module, rng):
    ring = module.RingBuffer(rng.randint(1, 5))
    log = []
    for _ in range(rng.randint(0, 20)):
        op = rng.choice(["append", "extend", "popleft", "index", "latest", "latest"])
        if op == "append":
            log.append(ring.append(rng.randint(-9, 9)))
        elif op == "extend":
            log.append(ring.extend(rng.randint(0, 9) for _ in range(rng.randint(0, 4))))
        elif op == "popleft" and len(ring):
            log.append(ring.popleft())
        elif op == "index" and len(ring):
            log.append(ring[rng.randint(-len(ring), len(ring) - 1)])
        elif op == "latest":
            log.append(ring.latest(rng.randint(0, 6)))
        log.append((list(ring), ring.is_full()))
    return log
