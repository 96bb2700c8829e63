from binary_search import binary_search


def test_finds_each_element():
    xs = [1, 3, 5, 7, 9, 11]
    for i, x in enumerate(xs):
        assert binary_search(xs, x) == i


def test_absent_values():
    xs = [1, 3, 5, 7]
    assert binary_search(xs, 0) == -1
    assert binary_search(xs, 4) == -1
    assert binary_search(xs, 8) == -1


def test_empty():
    assert binary_search([], 3) == -1
