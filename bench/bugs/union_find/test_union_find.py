from union_find import count_components


def test_two_components():
    assert count_components(5, [(0, 1), (1, 2), (3, 4)]) == 2


def test_redundant_edges():
    assert count_components(4, [(0, 1), (1, 2), (2, 0), (0, 1)]) == 2


def test_no_edges():
    assert count_components(3, []) == 3
