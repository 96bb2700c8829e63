from is_bipartite import is_bipartite


def test_even_cycle():
    assert is_bipartite({1: [2, 4], 2: [1, 3], 3: [2, 4], 4: [3, 1]})


def test_odd_cycle():
    assert not is_bipartite({1: [2, 3], 2: [1, 3], 3: [1, 2]})


def test_path_and_isolated():
    assert is_bipartite({"a": ["b"], "b": ["a", "c"], "c": ["b"], "d": []})
