from itertools import pairwise

import pytest
from gray_code import changed_bit, from_gray, gray_sequence, gray_strings, rotary_positions, to_gray


def test_to_and_from_gray():
    assert [to_gray(n) for n in range(8)] == [0, 1, 3, 2, 6, 7, 5, 4]
    assert all(from_gray(to_gray(n)) == n for n in range(1000))


def test_three_bit_sequence():
    assert gray_strings(3) == ["000", "001", "011", "010", "110", "111", "101", "100"]


def test_zero_width():
    assert gray_strings(0) == [""]
    with pytest.raises(ValueError, match="non-negative"):
        list(gray_sequence(-1))


def test_neighbours_differ_in_one_bit():
    codes = list(gray_sequence(5))
    cyclic = [*codes, codes[0]]
    assert all(changed_bit(a, b) is not None for a, b in pairwise(cyclic))
    assert sorted(codes) == list(range(32))


def test_changed_bit():
    assert changed_bit(0b110, 0b100) == 1
    assert changed_bit(0b110, 0b110) is None
    assert changed_bit(0b110, 0b001) is None


def test_rotary_positions():
    assert rotary_positions([0b00, 0b01, 0b11, 0b11, 0b10]) == [0, 1, 2, 2, 3]
    with pytest.raises(ValueError, match="skipped"):
        rotary_positions([0b00, 0b11])
