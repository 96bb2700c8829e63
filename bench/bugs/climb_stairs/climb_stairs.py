def climb_stairs(n, steps=(1, 2)):
    """The number of ways to climb ``n`` stairs taking any of ``steps`` stairs at a time."""
    ways = [0] * (n + 1)
    ways[0] = 1
    for i in range(1, n + 1):
        ways[i] = sum(ways[i - s] for s in steps if s <= i)
    return ways[n]
