import pytest

from inventory_reservations import Inventory, OutOfStock


@pytest.fixture
def stock():
    inventory = Inventory()
    inventory.receive("apple", 10)
    inventory.receive("pear", 4)
    return inventory


def test_reservation_reduces_availability(stock):
    stock.reserve("o1", {"apple": 3})
    assert stock.available("apple") == 7
    assert stock.on_hand("apple") == 10


def test_reservation_is_all_or_nothing(stock):
    with pytest.raises(OutOfStock, match="pear"):
        stock.reserve("o1", {"apple": 2, "pear": 5})
    assert stock.available("apple") == 10


def test_release_returns_stock(stock):
    stock.reserve("o1", {"pear": 4})
    assert stock.release("o1") is True
    assert stock.available("pear") == 4
    assert stock.release("o1") is False


def test_ship_takes_stock_away(stock):
    stock.reserve("o1", {"apple": 2, "pear": 1})
    stock.reserve("o1", {"apple": 1})
    assert stock.ship("o1") == [("apple", 3), ("pear", 1)]
    assert stock.on_hand("apple") == 7
    assert stock.reserved("apple") == 0


def test_reserved_fraction(stock):
    stock.reserve("o1", {"pear": 1})
    assert stock.reserved_fraction("pear") == 0.25
    assert stock.reserved_fraction("apple") == 0.0


def test_reserved_fraction_of_unknown_sku_is_zero(stock):
    assert stock.reserved_fraction("plum") == 0.0


def test_receive_rejects_non_positive(stock):
    with pytest.raises(ValueError, match="positive"):
        stock.receive("apple", 0)
