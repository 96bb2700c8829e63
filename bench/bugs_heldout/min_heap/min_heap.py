"""A binary min-heap priority queue whose items can change priority after they are queued."""

import itertools


def _parent(index):
    return (index - 1) // 2


class PriorityQueue:
    """Pops the item with the lowest priority; equal priorities come out first-in, first-out."""

    def __init__(self):
        self._heap = []  # [priority, order, item]
        self._where = {}  # item -> index in the heap
        self._order = itertools.count()

    def __len__(self):
        return len(self._heap)

    def __contains__(self, item):
        return item in self._where

    def push(self, item, priority):
        if item in self._where:
            raise KeyError(f"{item!r} is already queued")
        self._heap.append([priority, next(self._order), item])
        self._where[item] = len(self._heap) - 1
        self._sift_up(len(self._heap) - 1)

    def peek(self):
        if not self._heap:
            raise IndexError("peek at an empty queue")
        priority, _, item = self._heap[0]
        return item, priority

    def pop(self):
        if not self._heap:
            raise IndexError("pop from an empty queue")
        self._swap(0, len(self._heap) - 1)
        priority, _, item = self._heap.pop()
        del self._where[item]
        if self._heap:
            self._sift_down(0)
        return item, priority

    def change_priority(self, item, priority):
        index = self._where[item]
        old = self._heap[index][0]
        self._heap[index][0] = priority
        if priority < old:
            self._sift_up(index)
        else:
            self._sift_down(index)

    def _swap(self, i, j):
        self._heap[i], self._heap[j] = self._heap[j], self._heap[i]
        self._where[self._heap[i][2]] = i
        self._where[self._heap[j][2]] = j

    def _less(self, i, j):
        return self._heap[i][:2] < self._heap[j][:2]

    def _sift_up(self, index):
        while index > 0 and self._less(index, _parent(index)):
            self._swap(index, _parent(index))
            index = _parent(index)

    def _sift_down(self, index):
        size = len(self._heap)
        while True:
            smallest = index
            for child in (2 * index + 1, 2 * index + 2):
                if child < size and self._less(child, smallest):
                    smallest = child
            if smallest == index:
                return
            self._swap(index, smallest)
            index = smallest
