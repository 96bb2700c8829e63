import pytest

from chunked import batched_by_weight, chunked, split_evenly


def test_chunks_with_short_tail():
    assert list(chunked(range(7), 3)) == [(0, 1, 2), (3, 4, 5), (6,)]


def test_chunks_with_fill():
    assert list(chunked("abcde", 2, fill="-")) == [("a", "b"), ("c", "d"), ("e", "-")]
    assert list(chunked([1, 2, 3], 3, fill=None)) == [(1, 2, 3)]


def test_fill_none_pads_with_none():
    assert list(chunked([1], 3, fill=None)) == [(1, None, None)]


def test_chunked_rejects_zero_size():
    with pytest.raises(ValueError, match="size"):
        list(chunked([1], 0))


def test_chunked_works_on_a_generator():
    assert list(chunked((x * x for x in range(4)), 2)) == [(0, 1), (4, 9)]


def test_split_evenly():
    assert list(split_evenly([1, 2, 3, 4, 5], 3)) == [[1, 2], [3, 4], [5]]
    assert list(split_evenly([], 2)) == [[], []]


def test_batched_by_weight():
    words = ["aa", "bbb", "c", "dddddd", "e"]
    assert list(batched_by_weight(words, 4)) == [["aa"], ["bbb", "c"], ["dddddd"], ["e"]]
