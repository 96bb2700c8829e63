import json
import os
import sys

sys.path.insert(0, os.getcwd())

import config
import grades
import report


def test_default_and_file():
    assert config.DEFAULTS["pass_mark"] == 50
    with open(os.path.join(os.getcwd(), "settings.json")) as fh:
        assert json.load(fh)["pass_mark"] == 50
    assert config.load_config()["pass_mark"] == 50


def test_file_overrides_pass_mark(tmp_path):
    path = tmp_path / "strict.json"
    path.write_text(json.dumps({"pass_mark": 65, "course": "Maths"}))
    cfg = config.load_config(str(path))
    assert cfg["pass_mark"] == 65 and cfg["max_score"] == 100
    assert config.load_config(str(tmp_path / "missing.json"))["pass_mark"] == 50


def test_is_pass_uses_setting():
    cfg = {"max_score": 100, "course": "c", "pass_mark": 65}
    assert not grades.is_pass(64, cfg)
    assert grades.is_pass(65, cfg)
    lenient = {"max_score": 20, "course": "c", "pass_mark": 40}
    assert grades.is_pass(8, lenient)
    assert not grades.is_pass(7, lenient)


def test_class_report_uses_setting():
    cfg = {"max_score": 100, "course": "Chem", "pass_mark": 60}
    text = report.class_report({"cy": 55, "di": 60, "ed": 90}, cfg)
    assert text.splitlines() == [
        "Chem",
        "cy        55.0%  F  FAIL",
        "di        60.0%  D  PASS",
        "ed        90.0%  A  PASS",
        "2/3 passed",
    ]
    low = dict(cfg, pass_mark=30)
    assert report.class_report({"cy": 35, "fo": 20}, low).splitlines()[-1] == "1/2 passed"
