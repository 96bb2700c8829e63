from settings import load_settings


def test_defaults():
    assert load_settings()["top"] == 3


def test_override():
    assert load_settings("[report]\ntop = 5\n")["top"] == 5
