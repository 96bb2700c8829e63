from counting_sort import counting_sort


def test_sorts():
    assert counting_sort([4, 2, 2, 8, 3, 3, 1]) == [1, 2, 2, 3, 3, 4, 8]


def test_negative_values():
    assert counting_sort([0, -5, 3, -5]) == [-5, -5, 0, 3]


def test_small_inputs():
    assert counting_sort([]) == []
    assert counting_sort([9]) == [9]
