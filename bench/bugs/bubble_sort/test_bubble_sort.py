from bubble_sort import bubble_sort


def test_sorts():
    assert bubble_sort([5, 1, 4, 2, 8]) == [1, 2, 4, 5, 8]


def test_reversed():
    assert bubble_sort([6, 5, 4, 3, 2, 1]) == [1, 2, 3, 4, 5, 6]


def test_small_inputs():
    assert bubble_sort([]) == []
    assert bubble_sort([2, 1]) == [1, 2]
