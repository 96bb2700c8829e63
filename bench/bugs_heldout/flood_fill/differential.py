def trial(module, rng):
    rows, cols = rng.randint(1, 7), rng.randint(1, 7)
    palette = rng.choice(["ab", "abc", "a"])
    grid = [[rng.choice(palette) for _ in range(cols)] for _ in range(rows)]
    out = []
    for _ in range(3):
        r, c = rng.randrange(rows), rng.randrange(cols)
        colour = rng.choice(palette + "z")
        new, painted = module.flood_fill(grid, r, c, colour)
        out.append((new, painted))
    out.append(module.regions(grid, rng.choice(palette)))
    out.append(grid)
    return out
