"""Combining several iterables into one stream."""

import heapq
from collections import deque


def roundrobin(*iterables):
    """One item from each iterable in turn, dropping the ones that run out: ABC, D, EF -> A D E B F C."""
    iterators = deque(iter(it) for it in iterables)
    while iterators:
        iterator = iterators.popleft()
        try:
            value = next(iterator)
        except StopIteration:
            continue
        yield value
        iterators.append(iterator)


def interleave(*iterables):
    """Like roundrobin, but stop as soon as any iterable runs out (so every round is complete)."""
    for row in zip(*iterables):
        yield from row


def intersperse(iterable, separator):
    """The items with ``separator`` between each pair of neighbours, as str.join does for strings."""
    first = True
    for item in iterable:
        if not first:
            yield separator
        yield item
        first = False


def merge_sorted(*iterables, key=None):
    """Merge already sorted iterables into one sorted stream; equal items keep the order of their iterables."""
    key = key or (lambda x: x)
    heap = []
    for index, iterable in enumerate(iterables):
        iterator = iter(iterable)
        for value in iterator:
            heap.append((key(value), index, value, iterator))
            break
    heapq.heapify(heap)
    while heap:
        _, index, value, iterator = heap[0]
        yield value
        for following in iterator:
            heapq.heapreplace(heap, (key(following), index, following, iterator))
            break
        else:
            heapq.heappop(heap)
