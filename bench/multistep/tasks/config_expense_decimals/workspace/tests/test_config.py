from config import load_config


def test_defaults():
    assert load_config()["currency"] == "EUR"


def test_override():
    assert load_config('{"currency": "USD"}')["currency"] == "USD"
