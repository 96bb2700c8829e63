"""coin_change with distinct positive coins (sometimes none, sometimes larger than the amount), amounts from 0."""


def trial(module, rng):
    coins = rng.sample(range(1, 25), rng.choice([0, 1, 2, rng.randint(1, 5)]))
    amount = rng.choice([0, rng.randint(1, 10), rng.randint(1, 80)])
    return module.coin_change(coins, amount)
