"""knapsack with items of positive weight (some heavier than the capacity, some worth 0) and capacities from 0."""


def trial(module, rng):
    items = [(rng.randint(1, 12), rng.randint(0, 30)) for _ in range(rng.randint(0, 6))]
    capacity = rng.choice([0, rng.randint(1, 30)])
    return module.knapsack(items, capacity)
