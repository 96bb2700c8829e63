"""fibonacci for n from 0 (the base cases 0 and 1 often) up to large n."""


def trial(module, rng):
    return [module.fibonacci(n) for n in (rng.randint(0, 3), rng.randint(0, 30), rng.randint(0, 200))]
