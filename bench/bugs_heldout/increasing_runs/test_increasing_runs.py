from increasing_runs import lis_length, longest_increasing, longest_non_decreasing, removals_to_sort


def test_classic_example():
    assert longest_increasing([10, 9, 2, 5, 3, 7, 101, 18]) == [2, 3, 7, 18]


def test_empty_and_single():
    assert longest_increasing([]) == []
    assert longest_increasing([4]) == [4]


def test_duplicates_do_not_count_twice():
    assert lis_length([2, 2, 2]) == 1
    assert longest_increasing([1, 3, 3, 5]) == [1, 3, 5]


def test_non_decreasing_keeps_duplicates():
    assert longest_non_decreasing([1, 3, 3, 2, 5]) == [1, 3, 3, 5]


def test_decreasing_input():
    assert lis_length(list(range(10, 0, -1))) == 1


def test_removals_to_sort():
    assert removals_to_sort([1, 2, 3]) == 0
    assert removals_to_sort([3, 1, 2, 2]) == 1
    assert removals_to_sort([5, 4, 3]) == 2


def test_words():
    assert longest_increasing(["pear", "apple", "fig", "kiwi", "banana", "plum"]) == ["apple", "fig", "kiwi", "plum"]
