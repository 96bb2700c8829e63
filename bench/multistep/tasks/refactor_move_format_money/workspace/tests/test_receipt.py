from cart import Cart
from receipt import receipt_lines


def test_receipt_lines():
    cart = Cart()
    cart.add("tea", 2.5, 2)
    assert receipt_lines(cart) == [
        "2 x tea                $5.00",
        "TOTAL                  $5.00",
    ]
