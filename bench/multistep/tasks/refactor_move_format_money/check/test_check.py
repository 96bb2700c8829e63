import importlib
import os
import re
import sys

sys.path.insert(0, os.getcwd())

import cart
import receipt


def read(path):
    with open(os.path.join(os.getcwd(), path)) as fh:
        return fh.read()


def test_money_module_formats():
    money = importlib.import_module("money")
    assert money.format_money(0) == "$0.00"
    assert money.format_money(1000000) == "$1,000,000.00"
    assert money.format_money(-1234.567) == "-$1,234.57"
    assert money.format_money(9.999) == "$10.00"


def test_function_moved():
    assert re.search(r"^def format_money\(", read("money.py"), re.M)
    assert "def format_money" not in read("cart.py")
    assert "def format_money" not in read("receipt.py")


def test_imports_from_money():
    money = importlib.import_module("money")
    assert re.search(r"^from money import .*format_money", read("cart.py"), re.M)
    assert re.search(r"^from money import .*format_money", read("receipt.py"), re.M)
    assert receipt.format_money is money.format_money
    assert "from cart import format_money" not in read("tests/test_cart.py")
    assert re.search(r"^(from money import|import money)", read("tests/test_cart.py"), re.M)


def test_behaviour_unchanged():
    c = cart.Cart()
    c.add("rice", 1.99, 3)
    c.add("oil", 1200, 1)
    assert c.summary() == "4 items, $1,205.97"
    assert receipt.receipt_lines(c) == [
        "1 x oil            $1,200.00",
        "3 x rice               $5.97",
        "TOTAL              $1,205.97",
    ]
