from dijkstra import dijkstra

GRAPH = {
    "s": [("a", 7), ("b", 2)],
    "a": [("c", 1)],
    "b": [("a", 3), ("c", 8)],
    "c": [("d", 2)],
    "d": [],
}


def test_shortest_paths():
    assert dijkstra(GRAPH, "s") == {"s": 0, "a": 5, "b": 2, "c": 6, "d": 8}


def test_unreachable_left_out():
    assert dijkstra({"x": [], "y": [("x", 1)]}, "x") == {"x": 0}
