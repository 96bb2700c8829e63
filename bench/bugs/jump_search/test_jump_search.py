from jump_search import jump_search


def test_every_element():
    xs = list(range(0, 60, 3))
    for i, x in enumerate(xs):
        assert jump_search(xs, x) == i


def test_absent():
    xs = list(range(0, 60, 3))
    assert jump_search(xs, 4) == -1
    assert jump_search(xs, 100) == -1
    assert jump_search([], 1) == -1
