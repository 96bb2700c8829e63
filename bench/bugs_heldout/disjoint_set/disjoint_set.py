"""Union-find with path compression and union by size, plus Kruskal's minimum spanning tree."""

from dataclasses import dataclass


class DisjointSet:
    def __init__(self, items=()):
        self._parent = {}
        self._size = {}
        for item in items:
            self.add(item)

    def add(self, item):
        if item not in self._parent:
            self._parent[item] = item
            self._size[item] = 1

    def find(self, item):
        self.add(item)
        root = item
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[item] != root:
            self._parent[item], item = root, self._parent[item]
        return root

    def union(self, a, b):
        """Merge the sets of a and b; False when they were already together."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size[rb]
        return True

    def connected(self, a, b):
        return self.find(a) == self.find(b)

    def size_of(self, item):
        return self._size[self.find(item)]

    def groups(self):
        by_root = {}
        for item in self._parent:
            by_root.setdefault(self.find(item), []).append(item)
        return sorted(sorted(group) for group in by_root.values())


@dataclass(frozen=True, order=True)
class Edge:
    weight: float
    u: int
    v: int


def minimum_spanning_forest(nodes, edges):
    """Kruskal: the lightest edges that connect every component, and their total weight."""
    sets = DisjointSet(nodes)
    chosen = [edge for edge in sorted(edges) if sets.union(edge.u, edge.v)]
    return chosen, sum(edge.weight for edge in chosen)
