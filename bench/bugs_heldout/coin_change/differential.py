def trial(module, rng):
    coins = [rng.choice([1, 2, 3, 5, 7, 10, 25]) for _ in range(rng.randint(0, 4))]
    amount = rng.choice([0, 1, rng.randint(0, 60)])
    return [
        module.count_ways(amount, coins),
        module.fewest_coins(amount, coins),
        module.ways_table(range(rng.randint(0, 6)), coins),
    ]
