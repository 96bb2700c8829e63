from insertion_sort import insertion_sort


def test_sorts():
    assert insertion_sort([5, 2, 9, 1, 5, 6]) == [1, 2, 5, 5, 6, 9]


def test_smallest_last():
    assert insertion_sort([3, 2, 1]) == [1, 2, 3]


def test_small_inputs():
    assert insertion_sort([]) == []
    assert insertion_sort([4]) == [4]
    assert insertion_sort([2, 1]) == [1, 2]
