def trial(module, rng):
    items = [
        module.Item(f"i{k}", rng.choice([0, 1, rng.randint(1, 12)]), rng.choice([0, rng.randint(1, 50)]))
        for k in range(rng.randint(0, 7))
    ]
    capacity = rng.choice([0, 1, rng.randint(0, 30)])
    packing = module.pack(items, capacity)
    return [packing.value, packing.weight, packing.names, module.best_value(items, rng.randint(0, 20))]
