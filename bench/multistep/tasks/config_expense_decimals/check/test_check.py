import os
import sys

sys.path.insert(0, os.getcwd())

import config
import expenses
import summary


def test_default_decimals():
    assert config.DEFAULTS["decimals"] == 2
    assert config.load_config()["decimals"] == 2
    assert config.load_config('{"decimals": 0}')["decimals"] == 0


def test_format_amount_uses_decimals():
    cfg = config.load_config('{"decimals": 1, "currency": "GBP"}')
    assert expenses.format_amount(12.345, cfg) == "12.3 GBP"
    cfg0 = config.load_config('{"decimals": 0}')
    assert expenses.format_amount(7.6, cfg0) == "8 EUR"
    assert expenses.format_amount(7.6, config.load_config()) == "7.60 EUR"


def test_format_average_uses_decimals():
    ledger = {"food": [1, 1], "travel": [2]}
    cfg = config.load_config('{"decimals": 3}')
    assert summary.format_average(ledger, cfg) == "average 1.333 EUR"
    assert summary.format_average(ledger, config.load_config()) == "average 1.33 EUR"


def test_report_with_setting():
    ledger = {"rent": [500], "food": [10, 20]}
    cfg = config.load_config('{"decimals": 0, "currency": "SEK"}')
    assert summary.report(ledger, cfg) == "food: 30 SEK\nrent: 500 SEK\naverage 177 SEK"
