import pytest

from config import load_config
from expenses import add_expense
from summary import report


def test_add_expense():
    ledger = {}
    assert add_expense(ledger, "food", 12.5, load_config()) == "12.50 EUR"
    with pytest.raises(ValueError):
        add_expense(ledger, "toys", 1, load_config())


def test_report():
    ledger = {"food": [3, 4], "rent": [3]}
    assert report(ledger, load_config()) == "food: 7.00 EUR\nrent: 3.00 EUR\naverage 3.33 EUR"
