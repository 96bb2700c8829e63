from inventory import Product, low_stock, sort_products

ITEMS = [Product("nails", 500, 0.02), Product("hammer", 3, 12.5), Product("saw", 7, 20.0)]


def test_sort_by_name():
    assert [p.name for p in sort_products(ITEMS)] == ["hammer", "nails", "saw"]


def test_sort_by_price():
    assert [p.name for p in sort_products(ITEMS, "price")] == ["nails", "hammer", "saw"]


def test_low_stock():
    assert low_stock(ITEMS) == [ITEMS[1]]
