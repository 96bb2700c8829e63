"""Paint-bucket fill and region counting on a grid of single-character cells."""

NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def parse(text):
    return [list(line) for line in text.strip().splitlines()]


def show(grid):
    return "\n".join("".join(row) for row in grid)


def _inside(grid, r, c):
    return 0 <= r < len(grid) and 0 <= c < len(grid[r])


def _paint(grid, r, c, target, colour):
    if not _inside(grid, r, c):
        return 0
    if grid[r][c] != target or grid[r][c] == colour:
        return 0
    grid[r][c] = colour
    painted = 1
    for dr, dc in NEIGHBOURS:
        painted += _paint(grid, r + dr, c + dc, target, colour)
    return painted


def flood_fill(grid, r, c, colour):
    """Return (new grid, cells repainted) after filling the region at (r, c); the input is untouched."""
    result = [row[:] for row in grid]
    painted = _paint(result, r, c, result[r][c], colour)
    return result, painted


def regions(grid, colour):
    """Sizes of the 4-connected regions of the given colour, largest first."""
    scratch = [row[:] for row in grid]
    sizes = []
    for r, row in enumerate(scratch):
        for c, cell in enumerate(row):
            if cell == colour:
                sizes.append(_paint(scratch, r, c, colour, None))
    return sorted(sizes, reverse=True)
