def trial(module, rng):
    values = [rng.randint(-5, 5) for _ in range(rng.randint(0, 10))]
    size = rng.randint(1, 4)
    step = rng.randint(1, 3)
    return [
        list(module.windows(values, size, step)),
        list(module.windows(iter(values), size)),
        list(module.pairwise(values)),
        [round(x, 9) for x in module.moving_average(values, size)],
        module.largest_window(values, size),
        module.increases(values),
    ]
