"""A fixed-size ring buffer that keeps the most recent items, e.g. the last lines of a log."""


class RingBuffer:
    def __init__(self, capacity):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self._slots = [None] * capacity
        self._start = 0
        self._count = 0

    @property
    def capacity(self):
        return len(self._slots)

    def __len__(self):
        return self._count

    def is_full(self):
        return self._count == self.capacity

    def append(self, item):
        """Add ``item``; when full, the oldest item is overwritten and returned."""
        end = (self._start + self._count) % self.capacity
        dropped = None
        if self.is_full():
            dropped = self._slots[end]
            self._start = (self._start + 1) % self.capacity
        else:
            self._count += 1
        self._slots[end] = item
        return dropped

    def extend(self, items):
        return [dropped for dropped in map(self.append, items) if dropped is not None]

    def popleft(self):
        if not self._count:
            raise IndexError("pop from an empty buffer")
        item = self._slots[self._start]
        self._slots[self._start] = None
        self._start = (self._start + 1) % self.capacity
        self._count -= 1
        return item

    def __getitem__(self, index):
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("buffer index out of range")
        return self._slots[(self._start + index) % self.capacity]

    def __iter__(self):
        for offset in range(self._count):
            yield self._slots[(self._start + offset) % self.capacity]

    def latest(self, n):
        """The last ``n`` items, oldest first (all of them when there are fewer)."""
        n = min(n, self._count)
        return list(self)[self._count - n :]
