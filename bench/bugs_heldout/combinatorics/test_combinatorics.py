from itertools import islice

import pytest
from combinatorics import combinations, count_combinations, permutations, power_set


def test_combinations_of_three():
    assert list(combinations("abc", 2)) == [("a", "b"), ("a", "c"), ("b", "c")]


def test_choose_zero_and_too_many():
    assert list(combinations([1, 2, 3], 0)) == [()]
    assert list(combinations([1, 2], 3)) == []


def test_negative_k_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        list(combinations([1, 2], -1))


def test_combinations_are_lazy():
    first = next(combinations(range(1000), 3))
    assert first == (0, 1, 2)


def test_power_set():
    assert list(power_set([1, 2, 3])) == [(), (1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)]


def test_permutations():
    assert list(permutations([1, 2, 3])) == [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)]
    assert list(permutations([])) == [()]


def test_permutations_prefix():
    assert list(islice(permutations("abcd"), 2)) == [("a", "b", "c", "d"), ("a", "b", "d", "c")]


def test_counts_agree():
    for n in range(7):
        for k in range(n + 2):
            assert count_combinations(n, k) == len(list(combinations(range(n), k)))
    assert count_combinations(60, 30) == 118264581564861424
