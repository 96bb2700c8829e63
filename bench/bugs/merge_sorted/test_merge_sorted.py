from merge_sorted import merge_sorted


def test_interleaves():
    assert merge_sorted([1, 4, 7], [2, 3, 8, 9]) == [1, 2, 3, 4, 7, 8, 9]


def test_stable_ties():
    a, b = [(1, "a")], [(1, "b")]
    assert merge_sorted([1, 3], [1, 2]) == [1, 1, 2, 3]
    assert merge_sorted(a, b) == [(1, "a"), (1, "b")]


def test_empty_sides():
    assert merge_sorted([], [1, 2]) == [1, 2]
    assert merge_sorted([1, 2], []) == [1, 2]
