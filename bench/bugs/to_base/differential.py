"""to_base for n from 0 (and large n) in bases 2 to 36, including n equal to the base and one below it."""


def trial(module, rng):
    base = rng.randint(2, 36)
    ns = [0, base - 1, base, rng.randint(0, 1000), rng.randint(0, 10**30)]
    return [module.to_base(n, base) for n in ns]
