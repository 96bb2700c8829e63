def coin_change(coins, amount):
    """The fewest coins adding up to ``amount`` (each coin usable many times), or -1 when it cannot be made."""
    inf = amount + 1
    fewest = [0] + [inf] * amount
    for total in range(1, amount + 1):
        for coin in coins:
            if coin <= total and fewest[total - coin] + 1 < fewest[total]:
                fewest[total] = fewest[total - coin] + 1
    return fewest[amount] if fewest[amount] < inf else -1
