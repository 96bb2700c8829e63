"""Packing a bag: the 0/1 knapsack problem by dynamic programming over (items, capacity)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    name: str
    weight: int
    value: int


@dataclass(frozen=True)
class Packing:
    value: int
    weight: int
    names: tuple[str, ...]


def _best_values(items, capacity):
    """table[i][c]: best value using the first i items with capacity c; each item at most once."""
    table = [[0] * (capacity + 1) for _ in range(len(items) + 1)]
    for i, item in enumerate(items, start=1):
        for c in range(capacity + 1):
            table[i][c] = table[i - 1][c]
            if item.weight <= c:
                table[i][c] = max(table[i][c], table[i - 1][c - item.weight] + item.value)
    return table


def pack(items, capacity):
    """The most valuable packing within capacity (names in input order)."""
    if capacity < 0:
        raise ValueError("capacity must be non-negative")
    if any(item.weight < 0 for item in items):
        raise ValueError("weights must be non-negative")
    table = _best_values(items, capacity)
    chosen = []
    c = capacity
    for i in range(len(items), 0, -1):
        if table[i][c] != table[i - 1][c]:
            chosen.append(items[i - 1])
            c -= items[i - 1].weight
    chosen.reverse()
    return Packing(
        value=table[len(items)][capacity],
        weight=sum(item.weight for item in chosen),
        names=tuple(item.name for item in chosen),
    )


def best_value(items, capacity):
    return pack(items, capacity).value
