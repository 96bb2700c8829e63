from coin_change import coin_change


def test_classic():
    assert coin_change([1, 2, 5], 11) == 3


def test_greedy_fails():
    assert coin_change([1, 3, 4], 6) == 2


def test_impossible_and_zero():
    assert coin_change([2], 3) == -1
    assert coin_change([7], 0) == 0
