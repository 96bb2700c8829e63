def trial(module, rng):
    cache = module.LRUCache(rng.randint(1, 4))
    log = []
    for _ in range(rng.randint(0, 30)):
        key = rng.randint(0, 6)
        if rng.random() < 0.5:
            cache.put(key, rng.randint(-100, 100))
            log.append(None)
        else:
            log.append(cache.get(key, "missing"))
    log.append(cache.keys())
    log.append((len(cache), cache.evictions))
    return log
