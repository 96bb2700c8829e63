from quick_sort import quick_sort


def test_sorts():
    assert quick_sort([3, 6, 1, 8, 2, 9, 2]) == [1, 2, 2, 3, 6, 8, 9]


def test_sorted_and_reversed():
    assert quick_sort([1, 2, 3, 4]) == [1, 2, 3, 4]
    assert quick_sort([4, 3, 2, 1]) == [1, 2, 3, 4]


def test_small_inputs():
    assert quick_sort([]) == []
    assert quick_sort([7]) == [7]
