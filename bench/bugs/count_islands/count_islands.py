def count_islands(grid):
    """The number of 4-connected groups of '#' cells in a grid of strings."""
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    seen = set()

    def flood(r, c):
        stack = [(r, c)]
        while stack:
            r, c = stack.pop()
            if not (0 <= r < rows and 0 <= c < cols) or (r, c) in seen or grid[r][c] != "#":
                continue
            seen.add((r, c))
            stack.extend([(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)])

    islands = 0
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "#" and (r, c) not in seen:
                flood(r, c)
                islands += 1
    return islands
