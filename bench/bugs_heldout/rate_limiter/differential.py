def trial(module, rng):
    clock = module.FakeClock(rng.uniform(0, 1000))
    limiter = module.RateLimiter(rate=rng.choice([0.5, 1, 2, 10]), burst=rng.randint(1, 5), clock=clock)
    log = []
    for _ in range(rng.randint(1, 30)):
        key = rng.choice("ab")
        op = rng.random()
        if op < 0.3:
            clock.advance(rng.choice([0, 0.1, 0.5, 1, 3, 50]))
        elif op < 0.8:
            log.append(limiter.allow(key, cost=rng.choice([1, 1, 2])))
        elif op < 0.9:
            log.append(round(limiter.retry_after(key, cost=rng.randint(1, 3)), 9))
        else:
            log.append(limiter.remaining(key))
    return log
