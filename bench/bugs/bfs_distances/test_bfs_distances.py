from bfs_distances import bfs_distances

GRAPH = {"a": ["b", "c"], "b": ["d"], "c": ["d", "e"], "d": ["f"], "e": ["f"], "f": []}


def test_distances():
    assert bfs_distances(GRAPH, "a") == {"a": 0, "b": 1, "c": 1, "d": 2, "e": 2, "f": 3}


def test_from_the_middle():
    assert bfs_distances(GRAPH, "c") == {"c": 0, "d": 1, "e": 1, "f": 2}


def test_cycle_back_to_start():
    assert bfs_distances({1: [2], 2: [1]}, 1) == {1: 0, 2: 1}
