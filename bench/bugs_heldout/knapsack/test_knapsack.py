import pytest
from knapsack import Item, best_value, pack

CAMPING = [
    Item("tent", 5, 60),
    Item("stove", 3, 50),
    Item("lamp", 4, 70),
    Item("rope", 2, 30),
]


def test_best_packing():
    packing = pack(CAMPING, 8)
    assert packing.value == 120
    assert packing.names == ("stove", "lamp")
    assert packing.weight == 7


def test_each_item_used_once():
    assert best_value([Item("gold", 1, 100)], 10) == 100


def test_nothing_fits():
    assert pack(CAMPING, 1).names == ()
    assert best_value(CAMPING, 0) == 0


def test_everything_fits():
    assert pack(CAMPING, 100).names == ("tent", "stove", "lamp", "rope")


def test_no_items():
    assert pack([], 5).value == 0


def test_exact_fill_beats_greedy_by_ratio():
    items = [Item("a", 6, 30), Item("b", 5, 20), Item("c", 5, 20)]
    assert pack(items, 10).names == ("b", "c")


def test_invalid_arguments():
    with pytest.raises(ValueError, match="capacity"):
        pack(CAMPING, -1)
    with pytest.raises(ValueError, match="weights"):
        pack([Item("hole", -2, 5)], 3)
