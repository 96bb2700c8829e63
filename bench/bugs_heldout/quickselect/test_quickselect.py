import pytest
from quickselect import kth_smallest, median, percentile, top_k


def test_kth_smallest_each_rank():
    data = [7, 1, 5, 3, 9]
    assert [kth_smallest(data, k) for k in range(5)] == [1, 3, 5, 7, 9]


def test_kth_smallest_leaves_input_alone():
    data = [3, 2, 1]
    kth_smallest(data, 0)
    assert data == [3, 2, 1]


def test_kth_smallest_out_of_range():
    with pytest.raises(IndexError):
        kth_smallest([1, 2], 2)


def test_median_odd_and_even():
    assert median([5, 1, 3]) == 3
    assert median([4, 1, 3, 2]) == 2.5


def test_median_with_duplicates():
    assert median([2, 2, 2, 1]) == 2


def test_percentile():
    data = [15, 20, 35, 40, 50]
    assert percentile(data, 30) == 20
    assert percentile(data, 100) == 50


def test_top_k():
    assert top_k([4, 9, 1, 9, 3], 3) == [9, 9, 4]
    assert top_k([1, 2], 5) == [2, 1]
    assert top_k([1, 2], 0) == []
