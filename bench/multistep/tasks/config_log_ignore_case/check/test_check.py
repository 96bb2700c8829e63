import os
import sys

sys.path.insert(0, os.getcwd())

import levels
import search
import settings

LOG = ["error Disk full", "ERROR disk gone", "Info started", "INFO ready", "warn DISK slow", ""]
ON = "[report]\nignore_case = true\n"


def test_setting_default_and_override():
    assert settings.load_settings()["ignore_case"] is False
    assert settings.load_settings(ON)["ignore_case"] is True
    assert settings.load_settings("[report]\nignore_case = yes\ntop = 2\n") == {"top": 2, "ignore_case": True}
    assert settings.load_settings("[report]\nignore_case = no\n")["ignore_case"] is False
    assert settings.load_settings()["top"] == 3


def test_count_levels_ignore_case():
    counts = levels.count_levels(LOG, settings.load_settings(ON))
    assert counts == {"ERROR": 2, "INFO": 2, "WARN": 1}


def test_count_levels_case_sensitive_by_default():
    counts = levels.count_levels(LOG, settings.load_settings())
    assert counts["ERROR"] == 1 and counts["error"] == 1 and counts["Info"] == 1


def test_grep_ignore_case():
    got = search.grep(LOG, "disk", settings.load_settings(ON))
    assert got == ["error Disk full", "ERROR disk gone", "warn DISK slow"]
    assert search.count_matches(LOG, "INFO", settings.load_settings(ON)) == 2


def test_grep_case_sensitive_by_default():
    assert search.grep(LOG, "disk", settings.load_settings()) == ["ERROR disk gone"]
    assert search.count_matches(LOG, "INFO", settings.load_settings()) == 1


def test_top_levels_with_both_settings():
    s = settings.load_settings("[report]\ntop = 1\nignore_case = true\n")
    assert levels.top_levels(LOG + ["info x"], s) == [("INFO", 3)]
