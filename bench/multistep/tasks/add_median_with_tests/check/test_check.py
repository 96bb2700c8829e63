import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import report
import stats


def test_median_odd_unsorted():
    assert stats.median([9, 2, 7]) == 7
    assert stats.median([42]) == 42


def test_median_even():
    assert stats.median([8, 2, 6, 4]) == 5
    assert stats.median([1, 2]) == 1.5


def test_median_empty_raises():
    with pytest.raises(ValueError):
        stats.median([])


def test_median_does_not_mutate():
    data = [3, 1, 2]
    stats.median(data)
    assert data == [3, 1, 2]


def test_summarize_has_median():
    s = report.summarize([1, 2, 10])
    assert s["median"] == 2
    assert s["count"] == 3 and s["range"] == 9
    assert report.summarize([4, 1, 3, 2])["median"] == 2.5


def test_tests_mention_median():
    with open(os.path.join(os.getcwd(), "tests", "test_stats.py")) as fh:
        assert "median" in fh.read()
