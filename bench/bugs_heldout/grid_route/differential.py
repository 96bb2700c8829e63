def trial(module, rng):
    rows, cols = rng.randint(1, 7), rng.randint(1, 7)
    density = rng.choice([0.0, 0.2, 0.35, 0.5])
    cells = [["#" if rng.random() < density else "." for _ in range(cols)] for _ in range(rows)]
    start = (rng.randrange(rows), rng.randrange(cols))
    goal = (rng.randrange(rows), rng.randrange(cols))
    cells[goal[0]][goal[1]] = "E"
    cells[start[0]][start[1]] = "S"
    grid = module.GridMap("\n".join("".join(row) for row in cells))
    if start == goal:
        out = [grid.route(start=start, goal=goal), grid.distance(start=start, goal=goal)]
    else:
        out = [grid.route(), grid.distance(), grid.route(start=goal, goal=start)]
    a = (rng.randrange(rows), rng.randrange(cols))
    out.append(grid.distance(start=a, goal=start) if grid.open(*a) else None)
    return out
