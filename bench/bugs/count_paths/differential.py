"""count_paths on non-empty rectangular grids: open, with walls, one cell, one row or column, a walled start or end."""


def trial(module, rng):
    rows, cols = rng.randint(1, 7), rng.randint(1, 7)
    wall = rng.choice([0.0, 0.15, 0.35])
    cells = [["#" if rng.random() < wall else "." for _ in range(cols)] for _ in range(rows)]
    if rng.random() < 0.8:  # mostly an open start and end, so that paths exist
        cells[0][0] = cells[-1][-1] = "."
    return module.count_paths(["".join(row) for row in cells])
