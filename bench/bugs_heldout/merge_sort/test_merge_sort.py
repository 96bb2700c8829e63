from merge_sort import count_inversions, is_sorted, merge_sort


def test_sorts_numbers():
    assert merge_sort([5, 2, 9, 1, 5, 6]) == [1, 2, 5, 5, 6, 9]


def test_empty_and_single():
    assert merge_sort([]) == []
    assert merge_sort([42]) == [42]


def test_does_not_mutate_input():
    data = [3, 1, 2]
    merge_sort(data)
    assert data == [3, 1, 2]


def test_stable_with_key():
    words = ["pear", "fig", "apple", "kiwi", "date"]
    assert merge_sort(words, key=len) == ["fig", "pear", "kiwi", "date", "apple"]


def test_reverse_sorted_input():
    assert merge_sort(list(range(10, 0, -1))) == list(range(1, 11))


def test_count_inversions():
    assert count_inversions([]) == 0
    assert count_inversions([1, 2, 3]) == 0
    assert count_inversions([3, 2, 1]) == 3
    assert count_inversions([2, 4, 1, 3, 5]) == 3


def test_is_sorted():
    assert is_sorted([1, 1, 2])
    assert not is_sorted([2, 1])
    assert is_sorted(["bb", "a"], key=len) is False
