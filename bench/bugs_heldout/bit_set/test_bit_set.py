import pytest
from bit_set import BitSet


def test_add_and_contains():
    s = BitSet([3, 64, 200])
    assert 3 in s
    assert 64 in s
    assert 4 not in s
    assert 10_000 not in s


def test_iteration_is_sorted():
    assert list(BitSet([130, 5, 0, 63, 64])) == [0, 5, 63, 64, 130]


def test_len_and_duplicates():
    s = BitSet([1, 1, 2, 300])
    assert len(s) == 3


def test_discard():
    s = BitSet([1, 2, 3, 70])
    s.discard(2)
    s.discard(1000)
    assert list(s) == [1, 3, 70]


def test_set_algebra():
    a, b = BitSet([1, 2, 100]), BitSet([2, 3])
    assert list(a | b) == [1, 2, 3, 100]
    assert list(a & b) == [2]
    assert list(a - b) == [1, 100]


def test_equality_ignores_trailing_empty_words():
    s = BitSet([5, 500])
    s.discard(500)
    assert s == BitSet([5])
    assert repr(s) == "BitSet([5])"


def test_negative_numbers_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        BitSet().add(-1)
