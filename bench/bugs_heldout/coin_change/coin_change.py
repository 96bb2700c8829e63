"""Making change: how many ways to pay an amount, and the fewest coins that do it."""


def _check(amount, coins):
    if amount < 0:
        raise ValueError("amount must be non-negative")
    if any(coin <= 0 for coin in coins):
        raise ValueError("coins must be positive")
    return sorted(set(coins))


def count_ways(amount, coins):
    """Number of multisets of coins summing to amount (order does not matter)."""
    coins = _check(amount, coins)
    ways = [0] * (amount + 1)
    ways[0] = 1
    for coin in coins:
        for total in range(coin, amount + 1):
            ways[total] += ways[total - coin]
    return ways[amount]


def fewest_coins(amount, coins):
    """The fewest coins paying amount exactly, largest first, or None if it cannot be paid."""
    coins = _check(amount, coins)
    best = [0] + [None] * amount
    last = [0] * (amount + 1)
    for total in range(1, amount + 1):
        for coin in coins:
            if coin > total or best[total - coin] is None:
                continue
            if best[total] is None or best[total - coin] + 1 < best[total]:
                best[total] = best[total - coin] + 1
                last[total] = coin
    if best[amount] is None:
        return None
    used = []
    while amount:
        used.append(last[amount])
        amount -= last[amount]
    return sorted(used, reverse=True)


def ways_table(amounts, coins):
    return {amount: count_ways(amount, coins) for amount in amounts}
