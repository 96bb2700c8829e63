from knapsack import knapsack


def test_classic():
    assert knapsack([(1, 1), (3, 4), (4, 5), (5, 7)], 7) == 9


def test_each_item_once():
    assert knapsack([(2, 3)], 10) == 3


def test_nothing_fits():
    assert knapsack([(5, 10)], 4) == 0
    assert knapsack([], 5) == 0
