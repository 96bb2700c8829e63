from lis_length import lis_length


def test_classic():
    assert lis_length([10, 9, 2, 5, 3, 7, 101, 18]) == 4


def test_strictly_increasing_only():
    assert lis_length([7, 7, 7]) == 1
    assert lis_length([1, 2, 3, 4]) == 4


def test_empty():
    assert lis_length([]) == 0
