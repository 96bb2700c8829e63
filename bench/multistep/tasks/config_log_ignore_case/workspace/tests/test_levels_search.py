from levels import count_levels, top_levels
from search import count_matches, grep
from settings import load_settings

LOG = ["ERROR disk full", "INFO started", "ERROR Disk gone", "WARN slow", ""]


def test_count_levels():
    counts = count_levels(LOG, load_settings())
    assert counts == {"ERROR": 2, "INFO": 1, "WARN": 1}


def test_top_levels():
    assert top_levels(LOG, load_settings("[report]\ntop = 1\n")) == [("ERROR", 2)]


def test_grep():
    assert grep(LOG, "disk", load_settings()) == ["ERROR disk full"]
    assert count_matches(LOG, "o", load_settings()) == 2
