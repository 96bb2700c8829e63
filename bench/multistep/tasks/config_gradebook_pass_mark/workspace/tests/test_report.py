from config import load_config
from report import class_report


def test_class_report():
    text = class_report({"ann": 72, "bob": 30}, load_config())
    assert text.splitlines() == [
        "Physics 101",
        "ann       90.0%  A  PASS",
        "bob       37.5%  F  FAIL",
        "1/2 passed",
    ]
