from selection_sort import selection_sort


def test_sorts():
    assert selection_sort([64, 25, 12, 22, 11]) == [11, 12, 22, 25, 64]


def test_duplicates():
    assert selection_sort([3, 1, 3, 1]) == [1, 1, 3, 3]


def test_small_inputs():
    assert selection_sort([]) == []
    assert selection_sort([5]) == [5]
