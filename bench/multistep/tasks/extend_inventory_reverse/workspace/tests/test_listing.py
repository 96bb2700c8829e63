from inventory import Product
from listing import render, stock_value

ITEMS = [Product("nails", 500, 0.02), Product("hammer", 3, 12.5)]


def test_render():
    assert render(ITEMS) == "hammer        3   12.50\nnails       500    0.02"


def test_stock_value():
    assert stock_value(ITEMS) == 47.5
