from quickselect import quickselect


def test_every_rank():
    xs = [9, 1, 8, 2, 7, 3, 6, 4, 5]
    for k in range(len(xs)):
        assert quickselect(xs, k) == sorted(xs)[k]


def test_duplicates():
    xs = [3, 1, 3, 3, 2]
    assert [quickselect(xs, k) for k in range(5)] == [1, 2, 3, 3, 3]
