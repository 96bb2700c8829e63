"""A least-recently-used cache on a dict and a circular doubly linked list."""


class _Node:
    __slots__ = ("key", "next", "prev", "value")

    def __init__(self, key=None, value=None):
        self.key = key
        self.value = value
        self.prev = self
        self.next = self


class LRUCache:
    """Keeps at most ``capacity`` entries; adding past that drops the least recently used one."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._root = _Node()  # root.next is the most recent entry, root.prev the least recent
        self._nodes = {}
        self.evictions = 0

    def __len__(self):
        return len(self._nodes)

    def __contains__(self, key):
        return key in self._nodes

    def _unlink(self, node):
        node.prev.next = node.next
        node.next.prev = node.prev

    def _push_front(self, node):
        node.prev = self._root
        node.next = self._root.next
        self._root.next.prev = node
        self._root.next = node

    def get(self, key, default=None):
        node = self._nodes.get(key)
        if node is None:
            return default
        self._unlink(node)
        self._push_front(node)
        return node.value

    def put(self, key, value):
        node = self._nodes.get(key)
        if node is not None:
            node.value = value
            self._unlink(node)
            self._push_front(node)
            return
        if len(self._nodes) >= self.capacity:
            oldest = self._root.prev
            self._unlink(oldest)
            del self._nodes[oldest.key]
            self.evictions += 1
        node = _Node(key, value)
        self._nodes[key] = node
        self._push_front(node)

    def keys(self):
        """Keys from the most to the least recently used."""
        out = []
        node = self._root.next
        while node is not self._root:
            out.append(node.key)
            node = node.next
        return out
