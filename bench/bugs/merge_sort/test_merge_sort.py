from merge_sort import merge_sort


def test_sorts():
    assert merge_sort([38, 27, 43, 3, 9, 82, 10]) == [3, 9, 10, 27, 38, 43, 82]


def test_duplicates_and_negatives():
    assert merge_sort([0, -1, 5, -1, 0]) == [-1, -1, 0, 0, 5]


def test_small_inputs():
    assert merge_sort([]) == []
    assert merge_sort([1]) == [1]
