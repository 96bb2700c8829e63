from config import load_config
from grades import is_pass, letter, percentage


def test_settings_file_loaded():
    assert load_config()["max_score"] == 80


def test_percentage_and_letter():
    cfg = {"max_score": 80}
    assert percentage(40, cfg) == 50
    assert letter(76, cfg) == "A"


def test_is_pass():
    cfg = load_config()
    assert is_pass(40, cfg)
    assert not is_pass(39, cfg)
