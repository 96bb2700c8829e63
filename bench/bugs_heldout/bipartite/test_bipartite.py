from bipartite import can_pair_teams, graph_from_edges, is_bipartite, partition, two_colouring


def test_even_cycle_is_bipartite():
    square = graph_from_edges([(1, 2), (2, 3), (3, 4), (4, 1)])
    assert partition(square) == ([1, 3], [2, 4])


def test_odd_cycle_is_not():
    triangle = graph_from_edges([("a", "b"), ("b", "c"), ("c", "a")])
    assert not is_bipartite(triangle)
    assert partition(triangle) is None


def test_empty_graph():
    assert partition({}) == ([], [])


def test_isolated_nodes_are_coloured():
    graph = graph_from_edges([(1, 2)], nodes=[1, 2, 3])
    assert two_colouring(graph) == {1: 0, 2: 1, 3: 0}


def test_several_components():
    graph = graph_from_edges([(1, 2), (3, 4), (4, 5)], nodes=[6])
    assert partition(graph) == ([1, 3, 5, 6], [2, 4])


def test_odd_cycle_in_second_component():
    graph = graph_from_edges([(1, 2), (3, 4), (4, 5), (5, 3)])
    assert not is_bipartite(graph)


def test_teams():
    assert can_pair_teams([("ann", "bob"), ("bob", "cid")], ["ann", "bob", "cid", "dee"])
    assert not can_pair_teams([("ann", "bob"), ("bob", "cid"), ("cid", "ann")], [])
