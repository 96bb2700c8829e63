def trial(module, rng):
    limit = rng.choice([2, 3, 4, rng.randint(2, 60), rng.randint(100, 400)])
    table = module.PrimeTable(limit)
    out = [table.primes()]
    out.extend(n in table for n in (0, 1, rng.randint(0, limit)))
    for _ in range(3):
        n = rng.choice([1, 2, rng.randint(1, limit**2), rng.randint(1, 50)])
        out.append(table.factorise(n))
        out.append(module.divisor_count(table, n))
        out.append(module.totient(table, n))
    return out
