from disjoint_set import DisjointSet, Edge, minimum_spanning_forest


def test_singletons():
    ds = DisjointSet([1, 2, 3])
    assert not ds.connected(1, 2)
    assert ds.groups() == [[1], [2], [3]]


def test_union_and_connected():
    ds = DisjointSet()
    assert ds.union("a", "b")
    assert ds.union("b", "c")
    assert not ds.union("a", "c")
    assert ds.connected("a", "c")
    assert not ds.connected("a", "d")


def test_union_of_two_pairs():
    ds = DisjointSet(range(4))
    ds.union(0, 1)
    ds.union(2, 3)
    ds.union(1, 3)
    assert ds.connected(2, 0)
    assert ds.size_of(3) == 4


def test_long_chain_stays_consistent():
    ds = DisjointSet(range(16))
    for step in (1, 2, 4, 8):
        for i in range(0, 16, 2 * step):
            ds.union(i, i + step)
    assert ds.groups() == [list(range(16))]
    assert all(ds.find(i) == ds.find(0) for i in range(16))


def test_groups():
    ds = DisjointSet(range(6))
    ds.union(4, 0)
    ds.union(5, 2)
    ds.union(2, 4)
    assert ds.groups() == [[0, 2, 4, 5], [1], [3]]


def test_spanning_tree():
    edges = [Edge(4, 0, 1), Edge(1, 1, 2), Edge(3, 0, 2), Edge(2, 2, 3), Edge(5, 3, 4), Edge(7, 1, 4)]
    chosen, total = minimum_spanning_forest(range(5), edges)
    assert total == 11
    assert [(e.u, e.v) for e in chosen] == [(1, 2), (2, 3), (0, 2), (3, 4)]


def test_spanning_forest_of_disconnected_graph():
    chosen, total = minimum_spanning_forest(range(4), [Edge(1, 0, 1), Edge(2, 2, 3)])
    assert len(chosen) == 2
    assert total == 3
