"""count_islands on rectangular grids of '#' and '.' (none, one row or column, land touching every edge)."""


def trial(module, rng):
    rows = rng.choice([0, 1, rng.randint(1, 7)])
    cols = rng.randint(1, 7)
    land = rng.random()
    grid = ["".join("#" if rng.random() < land else "." for _ in range(cols)) for _ in range(rows)]
    return module.count_islands(grid)
