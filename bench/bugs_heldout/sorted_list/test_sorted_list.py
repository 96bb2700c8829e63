import pytest

from sorted_list import SortedList


def test_keeps_order():
    items = SortedList([5, 1, 4])
    items.add(3)
    items.add(0)
    assert list(items) == [0, 1, 3, 4, 5]


def test_membership():
    items = SortedList([1, 3, 5, 7])
    assert 5 in items
    assert 4 not in items
    assert 8 not in items


def test_duplicates_count_and_remove():
    items = SortedList([2, 2, 1, 2])
    assert items.count(2) == 3
    items.remove(2)
    assert items.count(2) == 2
    with pytest.raises(ValueError, match="not in list"):
        items.remove(9)


def test_rank():
    items = SortedList([10, 20, 20, 30])
    assert [items.rank(x) for x in (5, 20, 25, 99)] == [0, 1, 3, 4]


def test_between():
    items = SortedList(range(0, 20, 3))
    assert items.between(4, 12) == [6, 9, 12]
    assert items.between(13, 14) == []


def test_nearest():
    items = SortedList([1, 5, 10])
    assert items.nearest(7) == 5
    assert items.nearest(8) == 10
    assert items.nearest(3) == 1
    assert SortedList().nearest(3) is None
