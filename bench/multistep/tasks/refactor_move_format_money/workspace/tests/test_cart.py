from cart import Cart, format_money


def test_format_money():
    assert format_money(1234.5) == "$1,234.50"
    assert format_money(-3) == "-$3.00"


def test_cart_summary():
    cart = Cart()
    cart.add("apple", 0.5, 4)
    cart.add("apple", 0.5, 2)
    cart.add("melon", 3.0)
    assert cart.summary() == "7 items, $6.00"
