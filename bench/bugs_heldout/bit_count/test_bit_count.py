import pytest
from bit_count import hamming_distance, lowest_set_bit, next_same_popcount, parity, popcount, set_bits, subsets_of_size


def test_popcount():
    assert [popcount(n) for n in range(8)] == [0, 1, 1, 2, 1, 2, 2, 3]
    assert popcount(2**64 - 1) == 64


def test_popcount_rejects_negative():
    with pytest.raises(ValueError, match="negative"):
        popcount(-1)


def test_parity():
    assert parity(0b1011) == 1
    assert parity(0b1001) == 0


def test_hamming_distance():
    assert hamming_distance(0b1010, 0b0110) == 2
    assert hamming_distance(7, 7) == 0


def test_set_bits():
    assert list(set_bits(0b101001)) == [0, 3, 5]
    assert list(set_bits(0)) == []


def test_lowest_set_bit():
    assert lowest_set_bit(40) == 3
    assert lowest_set_bit(0) is None


def test_next_same_popcount():
    assert next_same_popcount(0b0111) == 0b1011
    assert next_same_popcount(0b0110) == 0b1001


def test_subsets_of_size():
    masks = list(subsets_of_size(4, 2))
    assert masks == [0b0011, 0b0101, 0b0110, 0b1001, 0b1010, 0b1100]
    assert all(popcount(m) == 2 for m in masks)
    assert list(subsets_of_size(3, 0)) == [0]
