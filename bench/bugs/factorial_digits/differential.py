"""factorial for n from 0 (0 and 1 often), and digit_sum of non-negative integers (0, factorials, large numbers)."""


def trial(module, rng):
    n = rng.choice([0, 1, 2, rng.randint(0, 60)])
    m = rng.choice([0, rng.randint(1, 9), rng.randint(0, 10**6), rng.randint(0, 10**40)])
    return [module.factorial(n), module.digit_sum(m), module.digit_sum(module.factorial(rng.randint(0, 30)))]
