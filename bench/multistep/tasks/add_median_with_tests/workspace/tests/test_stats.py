import pytest

from stats import mean, value_range


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_value_range():
    assert value_range([4, -1, 7]) == 8
