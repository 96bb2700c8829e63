from pair_with_sum import pair_with_sum


def test_found():
    assert pair_with_sum([1, 2, 4, 7, 11, 15], 15) == (2, 4)


def test_ends():
    assert pair_with_sum([1, 5, 9], 10) == (0, 2)


def test_missing():
    assert pair_with_sum([1, 2, 3], 100) is None
    assert pair_with_sum([1, 2, 3], 0) is None
    assert pair_with_sum([], 3) is None
