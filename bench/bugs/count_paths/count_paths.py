def count_paths(grid):
    """The number of right/down paths from the top-left to the bottom-right of a grid of '.' (open) and '#' (wall)."""
    rows, cols = len(grid), len(grid[0])
    ways = [[0] * cols for _ in range(rows)]
    ways[0][0] = 1 if grid[0][0] == "." else 0
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "#" or (r, c) == (0, 0):
                continue
            above = ways[r - 1][c] if r > 0 else 0
            left = ways[r][c - 1] if c > 0 else 0
            ways[r][c] = above + left
    return ways[rows - 1][cols - 1]
