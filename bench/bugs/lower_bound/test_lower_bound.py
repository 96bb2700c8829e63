from lower_bound import lower_bound


def test_first_of_duplicates():
    assert lower_bound([1, 2, 2, 2, 3], 2) == 1


def test_between_values():
    assert lower_bound([10, 20, 30], 25) == 2


def test_ends():
    assert lower_bound([10, 20, 30], 5) == 0
    assert lower_bound([10, 20, 30], 31) == 3
    assert lower_bound([], 1) == 0
