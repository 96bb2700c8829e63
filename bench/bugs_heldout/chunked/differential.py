def trial(module, rng):
    items = [rng.randint(-3, 9) for _ in range(rng.randint(0, 12))]
    size = rng.randint(1, 5)
    log = [list(module.chunked(items, size))]
    fill = rng.choice([None, 0, "x", -1])
    log.append(list(module.chunked(iter(items), size, fill=fill)))
    log.append(list(module.split_evenly(items, rng.randint(1, 5))))
    log.append(list(module.batched_by_weight(items, rng.randint(0, 12), weight=abs)))
    return log
