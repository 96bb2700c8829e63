import pytest
from coin_change import count_ways, fewest_coins, ways_table


def test_count_ways_small():
    assert count_ways(5, [1, 2, 5]) == 4
    assert count_ways(3, [2]) == 0


def test_zero_amount_has_one_way():
    assert count_ways(0, [1, 2]) == 1
    assert count_ways(0, []) == 1


def test_duplicate_coins_count_once():
    assert count_ways(4, [1, 2, 2]) == 3


def test_us_coins():
    assert count_ways(100, [1, 5, 10, 25, 50, 100]) == 293


def test_fewest_coins():
    assert fewest_coins(11, [1, 2, 5]) == [5, 5, 1]
    assert fewest_coins(6, [1, 3, 4]) == [3, 3]
    assert fewest_coins(7, [2, 4]) is None
    assert fewest_coins(0, [3]) == []


def test_table():
    assert ways_table([1, 2, 3, 4], [1, 2]) == {1: 1, 2: 2, 3: 2, 4: 3}


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        count_ways(5, [0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        fewest_coins(-1, [1])
