import pytest

from sliding_window import increases, largest_window, moving_average, pairwise, windows


def test_windows():
    assert list(windows([1, 2, 3, 4], 3)) == [(1, 2, 3), (2, 3, 4)]


def test_windows_with_step():
    assert list(windows(range(7), 3, step=2)) == [(0, 1, 2), (2, 3, 4), (4, 5, 6)]


def test_short_input_has_no_window():
    assert list(windows([1, 2], 3)) == []


def test_windows_rejects_bad_sizes():
    with pytest.raises(ValueError, match="at least 1"):
        list(windows([1], 0))


def test_pairwise():
    assert list(pairwise("abc")) == [("a", "b"), ("b", "c")]


def test_moving_average():
    assert list(moving_average([2, 4, 6, 8], 2)) == [3.0, 5.0, 7.0]


def test_largest_window():
    assert largest_window([1, 5, 2, 6, 0], 2) == (2, 6)
    assert largest_window([1], 2) is None


def test_increases():
    assert increases([199, 200, 208, 210, 200, 207]) == 4
